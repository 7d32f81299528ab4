"""The test guard: anything that tries to leave the machine fails loudly; loopback works."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request

import pytest

from support.fake_model_server import FakeServer, Reply, openai_reply


@pytest.mark.parametrize("address", [("192.0.2.1", 443), ("2001:db8::1", 443), ("example.com", 80)])
def test_connecting_outside_fails_loudly(address: tuple[str, int]) -> None:
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family) as sock, pytest.raises(RuntimeError, match="reach the internet"):
        sock.connect(address)


def test_connect_ex_is_guarded_too() -> None:
    with socket.socket() as sock, pytest.raises(RuntimeError, match="reach the internet"):
        sock.connect_ex(("192.0.2.1", 80))


def test_an_http_client_cannot_get_out() -> None:
    with pytest.raises(RuntimeError, match="reach the internet"):
        urllib.request.urlopen("http://192.0.2.1/", timeout=1)


@pytest.mark.parametrize("host", ["example.com", "api.openai.com", b"api.anthropic.com"])
def test_looking_up_a_host_name_fails_before_any_dns_query(host: str | bytes) -> None:
    with pytest.raises(RuntimeError, match="reach the internet: looked up"):
        socket.getaddrinfo(host, 443)


def test_an_sdk_without_a_local_base_url_cannot_get_out() -> None:
    with pytest.raises(RuntimeError, match="reach the internet"):
        socket.create_connection(("api.openai.com", 443), timeout=1)


def test_a_python_subprocess_is_guarded_too() -> None:
    probe = (
        "import socket\n"
        "for target in (lambda: socket.getaddrinfo('example.com', 80),\n"
        "               lambda: socket.socket().connect(('192.0.2.1', 80))):\n"
        "    try:\n"
        "        target()\n"
        "    except RuntimeError as exc:\n"
        "        print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == [
        "test tried to reach the internet: looked up 'example.com'",
        "test tried to reach the internet: ('192.0.2.1', 80)",
    ]


def test_localhost_and_numeric_addresses_resolve() -> None:
    assert socket.getaddrinfo("localhost", 80)
    assert socket.getaddrinfo("127.0.0.1", 80)
    assert socket.getaddrinfo(None, 80, flags=socket.AI_PASSIVE)


def test_loopback_still_works() -> None:
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
        request = urllib.request.Request(srv.url + "/v1/chat/completions", data=body)
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 200
