"""What trinho writes for the owner, in the owner's locale (English and Vietnamese)."""

from __future__ import annotations

CATALOG: dict[str, dict[str, str]] = {
    "init.created": {
        "en": "Workspace ready at {root} (time zone {tz}); created: {created}",
        "vi": "Không gian làm việc đã sẵn sàng tại {root} (múi giờ {tz}); đã tạo: {created}",
    },
    "init.unchanged": {
        "en": "Workspace at {root} is already set up (time zone {tz}); nothing changed",
        "vi": "Không gian làm việc tại {root} đã được thiết lập (múi giờ {tz}); không đổi gì",
    },
    "note.saved": {
        "en": "Saved to {path}: {line}",
        "vi": "Đã lưu vào {path}: {line}",
    },
    "notes.none": {
        "en": "No notes for {date}",
        "vi": "Không có ghi chú nào ngày {date}",
    },
    "import.done": {
        "en": "Imported {imported} turns into {days} days ({skipped} already present)",
        "vi": "Đã nhập {imported} lượt hội thoại vào {days} ngày ({skipped} đã có sẵn)",
    },
}


def t(locale: str, key: str, **params: object) -> str:
    """The message `key` in `locale` (English when that locale lacks it), filled with params."""
    entry = CATALOG[key]
    return entry.get(locale, entry["en"]).format(**params)
