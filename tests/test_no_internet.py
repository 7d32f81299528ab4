"""The test guard: anything that tries to leave the machine fails loudly; loopback works."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from fake_model_server import FakeServer, Reply, openai_reply


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


def test_loopback_still_works() -> None:
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        request = urllib.request.Request(srv.url + "/v1/chat/completions", data=b"{}")
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 200
