"""The owner-facing text of user errors and of the CLI's usage errors, in English and Vietnamese.

Kept apart from the rest of the catalog because errors are many; `trinho.i18n.CATALOG` holds
them all. The English text is what `str(error)` says, so logs, JSON and tests read the same in
every locale.
"""

from __future__ import annotations

ERROR_TEXTS: dict[str, dict[str, str]] = {
    # ---- the CLI boundary --------------------------------------------------------------------
    "error.aborted": {"en": "trinho: aborted", "vi": "trinho: đã huỷ"},
    "error.see_help": {
        "en": "{message} (see `{where} --help`)",
        "vi": "{message} (xem `{where} --help`)",
    },
    "error.usage.no_such_command": {
        "en": "No such command {name}.",
        "vi": "Không có lệnh {name}.",
    },
    "error.usage.missing_argument": {
        "en": "Missing argument {name}.",
        "vi": "Thiếu đối số {name}.",
    },
    "error.usage.missing_option": {
        "en": "Missing option {name}.",
        "vi": "Thiếu tuỳ chọn {name}.",
    },
    "error.usage.no_such_option": {
        "en": "No such option: {name}",
        "vi": "Không có tuỳ chọn: {name}",
    },
    "error.usage.no_such_option_quoted": {
        "en": "No such option {name}.",
        "vi": "Không có tuỳ chọn {name}.",
    },
    "error.usage.did_you_mean": {
        "en": "Did you mean {options}?",
        "vi": "Có phải ý bạn là {options}?",
    },
    "error.usage.did_you_mean_one_of": {
        "en": "(Did you mean one of: {options}?)",
        "vi": "(Có phải ý bạn là một trong: {options}?)",
    },
    "error.usage.option_needs_value": {
        "en": "Option {name} requires an argument.",
        "vi": "Tuỳ chọn {name} cần một giá trị.",
    },
    "error.usage.bad_value": {
        "en": "Invalid value for {name}: {detail}",
        "vi": "Giá trị không hợp lệ cho {name}: {detail}",
    },
    "error.usage.extra_argument": {
        "en": "Got unexpected extra argument ({args})",
        "vi": "Thừa đối số không mong đợi ({args})",
    },
    "error.usage.extra_arguments": {
        "en": "Got unexpected extra arguments ({args})",
        "vi": "Thừa các đối số không mong đợi ({args})",
    },
    # ---- the workspace, the clock, dates ---------------------------------------------------
    "error.workspace.missing": {
        "en": "no workspace at {path}: run `trinho --workspace {path} init` first",
        "vi": "không có không gian làm việc tại {path}: hãy chạy "
        "`trinho --workspace {path} init` trước",
    },
    "error.workspace.not_one": {
        "en": "{path} is not a workspace (no {config}, {memory} or {notes}/): "
        "run `trinho --workspace {path} init` first",
        "vi": "{path} không phải là không gian làm việc (không có {config}, {memory} hay "
        "{notes}/): hãy chạy `trinho --workspace {path} init` trước",
    },
    "error.config.not_utf8": {
        "en": "{path}: not UTF-8 text; fix or delete the file",
        "vi": "{path}: không phải văn bản UTF-8; hãy sửa hoặc xoá tệp",
    },
    "error.config.bad_locale": {
        "en": "{where}: [owner] locale must be one of {choices}",
        "vi": "{where}: [owner] locale phải là một trong {choices}",
    },
    "error.time.not_iso": {
        "en": "{where}={value!r} is not an ISO 8601 time; use e.g. 2026-11-29T14:05:00+07:00",
        "vi": "{where}={value!r} không phải thời điểm ISO 8601; hãy dùng dạng "
        "2026-11-29T14:05:00+07:00",
    },
    "error.time.no_offset": {
        "en": "{where}={value!r} has no UTC offset; add one, e.g. +07:00",
        "vi": "{where}={value!r} thiếu độ lệch UTC; hãy thêm vào, ví dụ +07:00",
    },
    "error.time.out_of_range": {
        "en": "{where} is out of range; give a time between the years 2 and 9998",
        "vi": "{where} nằm ngoài phạm vi; hãy cho một thời điểm trong khoảng năm 2 đến 9998",
    },
    "error.date.invalid": {
        "en": "{where}: {value!r} is not a calendar date (YYYY-MM-DD)",
        "vi": "{where}: {value!r} không phải ngày hợp lệ (YYYY-MM-DD)",
    },
    "error.zone.unknown": {
        "en": "{where}: unknown time zone {name!r}; use an IANA name such as Asia/Ho_Chi_Minh",
        "vi": "{where}: không biết múi giờ {name!r}; hãy dùng tên IANA như Asia/Ho_Chi_Minh",
    },
    "error.slug.invalid": {
        "en": "invalid {what} {value!r}: use 1-64 lowercase letters, digits, '-' or '_', "
        "starting with a letter or digit",
        "vi": "{what} {value!r} không hợp lệ: hãy dùng 1-64 chữ thường, chữ số, '-' hoặc '_', "
        "bắt đầu bằng chữ hoặc số",
    },
    "error.path.not_relative": {
        "en": "path {path!r} must be relative and stay inside {anchor}",
        "vi": "đường dẫn {path!r} phải là tương đối và nằm trong {anchor}",
    },
    "error.path.through_link": {
        "en": "path {path!r} leads outside {anchor} (through a link)",
        "vi": "đường dẫn {path!r} dẫn ra ngoài {anchor} (qua một liên kết)",
    },
    # ---- text: notes and files ---------------------------------------------------------------
    "error.text.not_unicode": {
        "en": "{what} is not valid Unicode text (character {position} is a lone surrogate, "
        "often a byte that is not UTF-8); re-type it in UTF-8",
        "vi": "{what} không phải văn bản Unicode hợp lệ (ký tự thứ {position} là một "
        "surrogate lẻ, thường là một byte không phải UTF-8); hãy gõ lại bằng UTF-8",
    },
    "error.text.invalid_utf8": {
        "en": "{where}:{line}: invalid UTF-8 at byte {byte}; fix the file (it was left untouched)",
        "vi": "{where}:{line}: UTF-8 không hợp lệ tại byte {byte}; hãy sửa tệp "
        "(tệp vẫn được giữ nguyên)",
    },
    "error.note.empty": {
        "en": "empty note: give some text to remember",
        "vi": "ghi chú trống: hãy cho nội dung cần ghi nhớ",
    },
    "error.note.nul": {
        "en": "note contains a NUL character; remove it",
        "vi": "ghi chú chứa ký tự NUL; hãy xoá nó đi",
    },
    "error.note.too_long": {
        "en": "note is {size:,} characters; the limit is {limit:,}. "
        "Save a summary, or split it into several notes",
        "vi": "ghi chú dài {size:,} ký tự; giới hạn là {limit:,}. "
        "Hãy lưu bản tóm tắt, hoặc chia thành nhiều ghi chú",
    },
    # ---- facts ---------------------------------------------------------------------------------
    "error.fact.not_found": {
        "en": "no fact {key!r} for {user}: see `trinho facts`",
        "vi": "không có dữ kiện {key!r} của {user}: xem `trinho facts`",
    },
    "error.fact.no_value_on": {
        "en": "fact {key!r} has no value on {day}: see `trinho fact history {key}`",
        "vi": "dữ kiện {key!r} không có giá trị vào ngày {day}: xem `trinho fact history {key}`",
    },
    "error.fact.not_utf8": {
        "en": "{where}: not UTF-8 text; fix or restore the file",
        "vi": "{where}: không phải văn bản UTF-8; hãy sửa hoặc khôi phục tệp",
    },
    "error.fact.empty_value": {
        "en": "fact {key!r}: the value is empty",
        "vi": "dữ kiện {key!r}: giá trị đang trống",
    },
    "error.fact.value_too_long": {
        "en": "fact {key!r}: the value is {size} bytes; the limit is {limit} "
        "(keep facts short; long text belongs in notes)",
        "vi": "dữ kiện {key!r}: giá trị dài {size} byte; giới hạn là {limit} "
        "(hãy giữ dữ kiện ngắn gọn; văn bản dài nên để trong ghi chú)",
    },
    "error.fact.control_char": {
        "en": "fact {key!r}: the value holds control character U+{code:04X}",
        "vi": "dữ kiện {key!r}: giá trị chứa ký tự điều khiển U+{code:04X}",
    },
    "error.fact.before_history": {
        "en": "fact {key!r}: a new value cannot start on {start}, before the recorded history "
        "ends ({floor}); give valid_from {floor} or later",
        "vi": "dữ kiện {key!r}: giá trị mới không thể bắt đầu ngày {start}, trước khi lịch sử "
        "đã ghi kết thúc ({floor}); hãy cho valid_from từ {floor} trở đi",
    },
    "error.fact.before_current": {
        "en": "fact {key!r}: the current value holds since {since}; a new value cannot start "
        "earlier ({start}); give valid_from {since} or later",
        "vi": "dữ kiện {key!r}: giá trị hiện tại có hiệu lực từ {since}; giá trị mới không thể "
        "bắt đầu sớm hơn ({start}); hãy cho valid_from từ {since} trở đi",
    },
    "error.fact.dates_order": {
        "en": "fact {key!r}: valid_to {end} must be after valid_from {start}",
        "vi": "dữ kiện {key!r}: valid_to {end} phải sau valid_from {start}",
    },
    "error.fact.dates_order_today": {
        "en": "fact {key!r}: valid_to {end} must be after valid_from {start} "
        "(valid_from defaults to today; give one)",
        "vi": "dữ kiện {key!r}: valid_to {end} phải sau valid_from {start} "
        "(valid_from mặc định là hôm nay; hãy cho một ngày)",
    },
    "error.fact.overlap": {
        "en": "fact {key!r}: {start}..{end} overlaps the recorded value {value!r} "
        "({since}..{until}); choose dates outside it",
        "vi": "dữ kiện {key!r}: {start}..{end} trùng với giá trị đã ghi {value!r} "
        "({since}..{until}); hãy chọn ngày nằm ngoài khoảng đó",
    },
    # ---- fact files ----------------------------------------------------------------------------
    "error.fact_file.no_front_matter": {
        "en": "{where}:{line}: a fact file starts with a '---' front matter line",
        "vi": "{where}:{line}: tệp dữ kiện phải bắt đầu bằng dòng '---' mở phần front matter",
    },
    "error.fact_file.not_closed": {
        "en": "{where}:{line}: the front matter is not closed by a '---' line",
        "vi": "{where}:{line}: phần front matter chưa được đóng bằng một dòng '---'",
    },
    "error.fact_file.no_key": {
        "en": "{where}:{line}: the front matter has no 'key:' line",
        "vi": "{where}:{line}: phần front matter không có dòng 'key:'",
    },
    "error.fact_file.key_mismatch": {
        "en": "{where}:{line}: key {key!r} does not match the file name {expected!r}",
        "vi": "{where}:{line}: key {key!r} không khớp với tên tệp {expected!r}",
    },
    "error.fact_file.unexpected_line": {
        "en": "{where}:{line}: expected a history item ('- value: ...'), its indented fields, "
        "a '#' heading or a blank line",
        "vi": "{where}:{line}: cần một mục lịch sử ('- value: ...'), các trường thụt lề của nó, "
        "một tiêu đề '#' hoặc một dòng trống",
    },
    "error.fact_file.no_valid_to": {
        "en": "{where}:{line}: a history version needs a valid_to",
        "vi": "{where}:{line}: một phiên bản trong lịch sử cần có valid_to",
    },
    "error.fact_file.bad_field": {
        "en": "{where}:{line}: expected 'field: value' with a field among {fields}",
        "vi": "{where}:{line}: cần dạng 'field: value' với một trường trong số {fields}",
    },
    "error.fact_file.field_twice": {
        "en": "{where}:{line}: field {name!r} appears twice",
        "vi": "{where}:{line}: trường {name!r} xuất hiện hai lần",
    },
    "error.fact_file.missing_field": {
        "en": "{where}:{line}: this version has no {name!r} field",
        "vi": "{where}:{line}: phiên bản này thiếu trường {name!r}",
    },
    "error.fact_file.not_json_string": {
        "en": '{where}:{line}: {name} must be a "quoted" JSON string',
        "vi": '{where}:{line}: {name} phải là một chuỗi JSON "trong ngoặc kép"',
    },
    "error.fact_file.bad_recorded_at": {
        "en": "{where}:{line}: recorded_at must be an ISO 8601 time with a UTC offset",
        "vi": "{where}:{line}: recorded_at phải là thời điểm ISO 8601 có độ lệch UTC",
    },
    "error.fact_file.bad_basis": {
        "en": "{where}:{line}: basis must be one of {choices}",
        "vi": "{where}:{line}: basis phải là một trong {choices}",
    },
    "error.fact_file.dates_order": {
        "en": "{where}:{line}: valid_to is before valid_from",
        "vi": "{where}:{line}: valid_to sớm hơn valid_from",
    },
    # ---- proposals -----------------------------------------------------------------------------
    "error.proposal.bad_id": {
        "en": "invalid proposal id {value!r}: ids are 10 hex digits (see `trinho proposals`)",
        "vi": "mã đề xuất {value!r} không hợp lệ: mã gồm 10 chữ số hex (xem `trinho proposals`)",
    },
    "error.proposal.not_found": {
        "en": "no proposal {id!r} in {folder}: see `trinho proposals --all`",
        "vi": "không có đề xuất {id!r} trong {folder}: xem `trinho proposals --all`",
    },
    "error.proposal.changed": {
        "en": "proposal {id} is not the change that was announced (content hash differs); "
        "nothing was decided: review it with `trinho proposals`",
        "vi": "đề xuất {id} không còn là thay đổi đã được thông báo (mã băm nội dung khác); "
        "chưa quyết định gì: hãy xem lại bằng `trinho proposals`",
    },
    "error.proposal.decided": {
        "en": "proposal {id} is already {status}; only pending proposals can be decided",
        "vi": "đề xuất {id} đã được quyết định rồi (trạng thái {status}); "
        "chỉ đề xuất đang chờ mới quyết định được",
    },
    "error.proposal.decided_by": {
        "en": "proposal {id} is already {status} (by {by}); only pending proposals can be decided",
        "vi": "đề xuất {id} đã được quyết định rồi (trạng thái {status}, bởi {by}); "
        "chỉ đề xuất đang chờ mới quyết định được",
    },
    "error.proposal.other_user": {
        "en": "proposal {id} is about user {about!r}, not {user!r}; nothing was decided "
        "(see `trinho proposals --user {about}`)",
        "vi": "đề xuất {id} là về người dùng {about!r}, không phải {user!r}; chưa quyết định "
        "gì (xem `trinho proposals --user {about}`)",
    },
    "error.condense.undo_alone": {
        "en": "--undo cannot be combined with --dry-run or --force",
        "vi": "--undo không dùng chung được với --dry-run hay --force",
    },
    # ---- condensation runs ---------------------------------------------------------------------
    "error.run.bad_id": {
        "en": "invalid run id {value!r}: run ids are ISO weeks like 2026-W48, or 2026-W48.2 "
        "for a forced second run (see .trinho/runs/)",
        "vi": "mã lần chạy {value!r} không hợp lệ: mã là tuần ISO như 2026-W48, hoặc "
        "2026-W48.2 cho lần chạy thứ hai bắt buộc (xem .trinho/runs/)",
    },
    "error.run.not_found": {
        "en": "no condensation run {id!r} in {folder}",
        "vi": "không có lần cô đọng {id!r} trong {folder}",
    },
    # ---- search --------------------------------------------------------------------------------
    "error.search.empty": {
        "en": "empty query: give some words to search for (or --batch FILE)",
        "vi": "truy vấn trống: hãy cho vài từ cần tìm (hoặc --batch FILE)",
    },
    "error.search.query_and_batch": {
        "en": "give either QUERY or --batch FILE, not both",
        "vi": "hãy cho QUERY hoặc --batch FILE, không cho cả hai",
    },
    "error.get.first_line": {
        "en": "{path}: line numbers start at 1 (got {line})",
        "vi": "{path}: số dòng bắt đầu từ 1 (nhận được {line})",
    },
    "error.get.no_lines": {
        "en": "{path}: give at least 1 line (got {lines})",
        "vi": "{path}: hãy lấy ít nhất 1 dòng (nhận được {lines})",
    },
    "error.get.folder": {
        "en": "{path}: is a folder; give a file in it, e.g. {path}/...",
        "vi": "{path}: là một thư mục; hãy cho một tệp trong đó, ví dụ {path}/...",
    },
    "error.get.no_file": {
        "en": "{path}: no such file in the workspace {root}",
        "vi": "{path}: không có tệp này trong không gian làm việc {root}",
    },
    "error.get.past_end": {
        "en": "{path}: has {count} lines; line {line} is past its end",
        "vi": "{path}: chỉ có {count} dòng; dòng {line} nằm sau cuối tệp",
    },
    # ---- the model -----------------------------------------------------------------------------
    "error.model": {"en": "model {model}: {detail}", "vi": "mô hình {model}: {detail}"},
    "error.model.attempts": {
        "en": " (after {attempts} attempts)",
        "vi": " (sau {attempts} lần thử)",
    },
    "error.model.not_configured": {
        "en": "no model configured: set TRINHO_MODEL=PROVIDER:MODEL (e.g. ollama:qwen3:8b) "
        'or name = "PROVIDER:MODEL" under [model] in {config}',
        "vi": "chưa cấu hình mô hình: hãy đặt TRINHO_MODEL=PROVIDER:MODEL "
        '(ví dụ ollama:qwen3:8b) hoặc name = "PROVIDER:MODEL" trong mục [model] của {config}',
    },
    "error.model.bad_name": {
        "en": "{where}={value!r} is not PROVIDER:MODEL with a known provider ({known}); "
        "e.g. ollama:qwen3:8b or openai:gpt-4.1-mini",
        "vi": "{where}={value!r} không có dạng PROVIDER:MODEL với nhà cung cấp đã biết "
        "({known}); ví dụ ollama:qwen3:8b hoặc openai:gpt-4.1-mini",
    },
    "error.model.no_key": {
        "en": "no API key: set {names}",
        "vi": "chưa có khoá API: hãy đặt {names}",
    },
    "error.model.unreachable": {
        "en": "cannot reach {url}: is the server running?",
        "vi": "không kết nối được {url}: máy chủ có đang chạy không?",
    },
    "error.model.timeout": {
        "en": "no answer from {url} within {seconds:g} s",
        "vi": "{url} không trả lời trong {seconds:g} giây",
    },
}
