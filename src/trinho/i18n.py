"""What trinho writes for the owner, in the owner's locale (English and Vietnamese)."""

from __future__ import annotations

from trinho.error_texts import ERROR_TEXTS

CATALOG: dict[str, dict[str, str]] = {
    "init.created": {
        "en": "Workspace ready at {root} (time zone {tz}); created: {created}",
        "vi": "Không gian làm việc đã sẵn sàng tại {root} (múi giờ {tz}); đã tạo: {created}",
    },
    "init.unchanged": {
        "en": "Workspace at {root} is already set up (time zone {tz}); nothing changed",
        "vi": "Không gian làm việc tại {root} đã được thiết lập (múi giờ {tz}); không đổi gì",
    },
    "init.zone_changed": {
        "en": "Time zone changed from {old} to {new} at {at}: notes written before then are "
        "read in {old}, later ones in {new}; the next condensation reads from where the last "
        "one stopped, in instants, so no note is read twice or skipped",
        "vi": "Múi giờ đã đổi từ {old} sang {new} lúc {at}: ghi chú viết trước đó được đọc theo "
        "{old}, sau đó theo {new}; lần cô đọng tới đọc tiếp từ chỗ lần trước dừng, theo thời "
        "điểm, nên không ghi chú nào bị đọc hai lần hay bị bỏ sót",
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
    "channel.waiting": {
        "en": "{count} changes wait for your approval:",
        "vi": "{count} thay đổi đang chờ bạn duyệt:",
    },
    "channel.nothing_waiting": {
        "en": "Nothing waits for your approval.",
        "vi": "Không có gì đang chờ bạn duyệt.",
    },
    "channel.count": {"en": "- {label}: {count}", "vi": "- {label}: {count}"},
    "channel.kind.removed": {"en": "lines removed", "vi": "dòng bị xoá"},
    "channel.kind.edited": {"en": "lines edited", "vi": "dòng được sửa"},
    "channel.kind.strange_date": {"en": "strange dates", "vi": "ngày bất thường"},
    "channel.kind.malformed": {"en": "malformed lines", "vi": "dòng sai định dạng"},
    "channel.kind.suspicious": {"en": "suspicious rewrites", "vi": "bản viết lại đáng ngờ"},
    "channel.kind.archive": {"en": "archive proposals", "vi": "đề xuất lưu trữ"},
    "channel.kind.fact": {"en": "fact changes", "vi": "thay đổi dữ kiện"},
    "channel.kind.other": {"en": "other ({kind})", "vi": "khác ({kind})"},
    "channel.item.header": {
        "en": "Change {index} of {total}: {label}",
        "vi": "Thay đổi {index}/{total}: {label}",
    },
    "channel.item.proposal": {"en": "Proposal {id}", "vi": "Đề xuất {id}"},
    "channel.item.old": {"en": "Old: {text}", "vi": "Cũ: {text}"},
    "channel.item.new": {"en": "New: {text}", "vi": "Mới: {text}"},
    "channel.item.none": {"en": "(nothing)", "vi": "(không có)"},
    "channel.item.reason": {"en": "Reason: {text}", "vi": "Lý do: {text}"},
    "channel.console.decide": {
        "en": "Decide with `trinho approve ID` or `trinho reject ID`.",
        "vi": "Quyết định bằng `trinho approve ID` hoặc `trinho reject ID`.",
    },
    "channel.button.approve_all": {"en": "✅ Approve all", "vi": "✅ Duyệt tất cả"},
    "channel.button.reject_all": {"en": "❌ Reject all", "vi": "❌ Từ chối tất cả"},
    "channel.button.review": {"en": "🔍 Review one by one", "vi": "🔍 Xem từng mục"},
    "channel.button.approve": {"en": "✅ Approve", "vi": "✅ Duyệt"},
    "channel.button.reject": {"en": "❌ Reject", "vi": "❌ Từ chối"},
    "channel.cb.not_owner": {
        "en": "Only the owner can decide; nothing was done.",
        "vi": "Chỉ chủ sở hữu mới được quyết định; không có gì thay đổi.",
    },
    "channel.cb.forged": {
        "en": "This button is not valid; nothing was done.",
        "vi": "Nút này không hợp lệ; không có gì thay đổi.",
    },
    "channel.cb.stale": {
        "en": "This button is out of date; nothing was done.",
        "vi": "Nút này đã cũ; không có gì thay đổi.",
    },
    "channel.cb.unavailable": {
        "en": "Decisions are not available right now; nothing was done.",
        "vi": "Hiện chưa thể quyết định; không có gì thay đổi.",
    },
    "channel.cb.failed": {
        "en": "Something went wrong; nothing more was done.",
        "vi": "Đã có lỗi; không làm gì thêm.",
    },
    "channel.cb.approved": {"en": "Approved.", "vi": "Đã duyệt."},
    "channel.cb.rejected": {"en": "Rejected.", "vi": "Đã từ chối."},
    "channel.cb.refused": {"en": "Not done: {message}", "vi": "Không thực hiện: {message}"},
    "channel.cb.review": {"en": "Review: {total} changes", "vi": "Xem lại: {total} thay đổi"},
    "channel.bulk.approved": {
        "en": "Approved {ok} of {total}.",
        "vi": "Đã duyệt {ok}/{total}.",
    },
    "channel.bulk.rejected": {
        "en": "Rejected {ok} of {total}.",
        "vi": "Đã từ chối {ok}/{total}.",
    },
    "channel.bulk.not_done": {
        "en": "Not done for {id}: {message}",
        "vi": "Không thực hiện với {id}: {message}",
    },
    "channel.review.done": {"en": "Review finished.", "vi": "Đã xem xong."},
    "channel.clipped": {"en": "… (cut)", "vi": "… (đã cắt)"},
    "channel.maybe_repeat": {
        "en": "(Sent again: an earlier send may have arrived.) {title}",
        "vi": "(Gửi lại: lần gửi trước có thể đã đến.) {title}",
    },
    "channel.empty_reply": {
        "en": "(The model gave no answer. Please try again or rephrase.)",
        "vi": "(Mô hình không trả lời. Hãy thử lại hoặc hỏi cách khác.)",
    },
    "budget.over_run": {
        "en": "Skipped: about {need} more tokens would pass this run's budget "
        "({spent} of {limit} used)",
        "vi": "Đã bỏ qua: thêm khoảng {need} token sẽ vượt ngân sách của lần chạy này "
        "(đã dùng {spent} trên {limit})",
    },
    "budget.over_week": {
        "en": "Skipped: about {need} more tokens would pass the weekly budget "
        "({spent} of {limit} used in the last 7 days)",
        "vi": "Đã bỏ qua: thêm khoảng {need} token sẽ vượt ngân sách tuần "
        "(đã dùng {spent} trên {limit} trong 7 ngày qua)",
    },
    "model.answered": {
        "en": "{model} answered from {url} in {seconds} s ({tokens} tokens): {reply}",
        "vi": "{model} đã trả lời từ {url} sau {seconds} giây ({tokens} token): {reply}",
    },
    "usage.none": {
        "en": "No model calls recorded{since}",
        "vi": "Chưa ghi nhận lần gọi mô hình nào{since}",
    },
    "usage.since": {
        "en": " since {date}",
        "vi": " kể từ {date}",
    },
    "usage.total": {
        "en": "{calls} calls, {total} tokens ({input} in, {output} out){since}",
        "vi": "{calls} lần gọi, {total} token ({input} vào, {output} ra){since}",
    },
    "usage.cached": {
        "en": "  of the input, {cached} tokens came from a prompt cache",
        "vi": "  trong phần vào, {cached} token lấy từ bộ nhớ đệm prompt",
    },
    "usage.row": {
        "en": "  {label}: {calls} calls, {total} tokens",
        "vi": "  {label}: {calls} lần gọi, {total} token",
    },
    "usage.by_purpose": {"en": "By purpose:", "vi": "Theo mục đích:"},
    "usage.by_model": {"en": "By model:", "vi": "Theo mô hình:"},
    "usage.failed": {
        "en": "  {failed} of them failed: {kinds}",
        "vi": "  trong đó {failed} lần thất bại: {kinds}",
    },
    "usage.row_failed": {
        "en": "  {label}: {calls} calls ({failed} failed), {total} tokens",
        "vi": "  {label}: {calls} lần gọi ({failed} thất bại), {total} token",
    },
    "model.warn_one_model": {
        "en": "warning: {url} serves one model, {served}, whatever name is asked: the answer "
        "came from it, not from {model} (name it in TRINHO_MODEL or [model] name)",
        "vi": "cảnh báo: {url} chỉ phục vụ một mô hình, {served}, dù hỏi tên nào: câu trả lời "
        "đến từ nó, không phải từ {model} (hãy đặt tên này trong TRINHO_MODEL hoặc [model] name)",
    },
    "model.warn_unlisted": {
        "en": "warning: {url} does not list {model} among its models ({served}), yet it answered",
        "vi": "cảnh báo: {url} không liệt kê {model} trong các mô hình của nó ({served}), "
        "nhưng vẫn trả lời",
    },
    "gate.none": {
        "en": "No changes",
        "vi": "Không có thay đổi nào",
    },
    "gate.summary": {
        "en": "{auto} change(s) apply by themselves, {held} wait for your approval",
        "vi": "{auto} thay đổi tự áp dụng, {held} thay đổi chờ bạn duyệt",
    },
    "gate.action.auto": {"en": "auto", "vi": "tự động"},
    "gate.action.held": {"en": "HELD", "vi": "CHỜ DUYỆT"},
    "gate.class.added": {"en": "added", "vi": "thêm"},
    "gate.class.date_changed": {"en": "date changed", "vi": "đổi ngày"},
    "gate.class.moved": {"en": "moved", "vi": "di chuyển"},
    "gate.class.removed": {"en": "removed", "vi": "xoá"},
    "gate.class.edited": {"en": "edited", "vi": "sửa"},
    "gate.class.strange_date": {"en": "strange date", "vi": "ngày bất thường"},
    "gate.class.malformed": {"en": "malformed line", "vi": "dòng sai định dạng"},
    "gate.class.suspicious": {"en": "suspicious rewrite", "vi": "bản viết lại đáng ngờ"},
    "gate.class.folded": {"en": "duplicate folded", "vi": "gộp dòng trùng"},
    "gate.class.archive": {"en": "archive", "vi": "lưu trữ"},
    "gate.reason.added_in_window": {
        "en": "new entry dated inside the window {since}..{today}",
        "vi": "mục mới, ngày nằm trong tuần này ({since} đến {today})",
    },
    "gate.reason.not_a_date": {
        "en": "date {date} is not a calendar date",
        "vi": "ngày {date} không có trên lịch",
    },
    "gate.reason.future": {
        "en": "date {date} is in the future (today is {today})",
        "vi": "ngày {date} nằm ở tương lai (hôm nay là {today})",
    },
    "gate.reason.outside_window": {
        "en": "date {date} is outside the window {since}..{today}",
        "vi": "ngày {date} nằm ngoài tuần này ({since} đến {today})",
    },
    "gate.reason.new_date_not_a_date": {
        "en": "new date {date} is not a calendar date",
        "vi": "ngày mới {date} không có trên lịch",
    },
    "gate.reason.old_date_not_a_date": {
        "en": "old date {old} is not a calendar date; the new date {new} waits",
        "vi": "ngày cũ {old} không có trên lịch; ngày mới {new} chờ bạn duyệt",
    },
    "gate.reason.moved_earlier": {
        "en": "date moved earlier, from {before} to {after}",
        "vi": "ngày bị lùi về trước, từ {before} thành {after}",
    },
    "gate.reason.moved_later": {
        "en": "date moved later, from {before} to {after}, inside the window",
        "vi": "ngày được dời về sau, từ {before} thành {after}, vẫn trong tuần này",
    },
    "gate.reason.edited": {
        "en": "text changed (similarity {similarity:.2f}); the old line stays until decided",
        "vi": "nội dung bị sửa (giống {similarity:.0%}); dòng cũ được giữ đến khi bạn quyết định",
    },
    "gate.reason.malformed": {
        "en": "not an entry or a heading; it reaches MEMORY.md only if you approve it",
        "vi": "không phải mục có ngày hay tiêu đề; chỉ vào MEMORY.md nếu bạn duyệt",
    },
    "gate.reason.control_chars": {
        "en": "the line holds control characters (a terminal escape, NUL); held, never applied "
        "by itself",
        "vi": "dòng chứa ký tự điều khiển (mã thoát terminal, NUL); được giữ lại, không bao giờ "
        "tự áp dụng",
    },
    "gate.reason.suspicious": {
        "en": "the rewrite would remove {lost} of {total} lines; held whole, nothing applied",
        "vi": "bản viết lại sẽ xoá {lost} trong số {total} dòng; cả bản chờ bạn duyệt, "
        "chưa áp dụng gì",
    },
    "gate.reason.heading_added": {"en": "heading added", "vi": "thêm tiêu đề"},
    "gate.reason.heading_removed": {"en": "heading removed", "vi": "bỏ tiêu đề"},
    "gate.reason.heading_accepted": {
        "en": "new heading, accepted by screening",
        "vi": "tiêu đề mới, đã được sàng lọc chấp nhận",
    },
    "gate.reason.heading_unscreened": {
        "en": "new heading that screening did not clearly accept; it reaches MEMORY.md only if "
        "you approve it",
        "vi": "tiêu đề mới chưa được sàng lọc chấp nhận rõ ràng; chỉ vào MEMORY.md nếu bạn duyệt",
    },
    "gate.reason.edited_heading": {
        "en": "heading changed (similarity {similarity:.2f}); the old heading stays until decided",
        "vi": "tiêu đề bị sửa (giống {similarity:.0%}); tiêu đề cũ được giữ đến khi bạn quyết định",
    },
    "gate.reason.removed_heading": {
        "en": "heading missing from the rewrite; it stays until you approve its removal",
        "vi": "tiêu đề bị xoá khỏi bản viết lại: vẫn giữ, chờ bạn duyệt việc xoá",
    },
    "gate.reason.removed_marker": {
        "en": "OpenClaw marker line missing from the rewrite; it stays until you approve its "
        "removal",
        "vi": "dòng đánh dấu của OpenClaw bị xoá khỏi bản viết lại: vẫn giữ, chờ bạn duyệt "
        "việc xoá",
    },
    "gate.reason.order_changed": {"en": "order changed", "vi": "đổi thứ tự"},
    "gate.reason.section_changed": {"en": "section changed", "vi": "chuyển sang phần khác"},
    "gate.reason.removed_entry": {
        "en": "entry missing from the rewrite; it stays until you approve its removal",
        "vi": "mục bị xoá khỏi bản viết lại: vẫn giữ, chờ bạn duyệt việc xoá",
    },
    "gate.reason.removed_line": {
        "en": "hand-written line missing from the rewrite; it stays until you approve its removal",
        "vi": "dòng viết tay bị xoá khỏi bản viết lại: vẫn giữ, chờ bạn duyệt việc xoá",
    },
    "gate.reason.duplicate_of_entry": {
        "en": "already in MEMORY.md as “{kept}”; not written twice",
        "vi": "đã có trong MEMORY.md: “{kept}”; không ghi hai lần",
    },
    "gate.reason.duplicate_addition": {
        "en": "the rewrite adds this twice; only the first, “{kept}”, counts",
        "vi": "bản viết lại thêm dòng này hai lần; chỉ tính dòng đầu: “{kept}”",
    },
    "gate.reason.over_budget": {
        "en": "MEMORY.md is about {tokens} tokens, over its budget of {budget}; "
        "{count} of the least recently dated entries move to memory/archive.md",
        "vi": "MEMORY.md khoảng {tokens} token, vượt mức {budget}; "
        "{count} mục có ngày cũ nhất được chuyển sang memory/archive.md",
    },
    "fact.outcome.created": {
        "en": "Saved {fact}: {value}",
        "vi": "Đã lưu {fact}: {value}",
    },
    "fact.outcome.unchanged": {
        "en": "{fact} already says {value}; nothing changed",
        "vi": "{fact} vẫn là {value}; không có gì thay đổi",
    },
    "fact.outcome.superseded": {
        "en": "Updated {fact}: {value} (the old value is kept in its history)",
        "vi": "Đã cập nhật {fact}: {value} (giá trị cũ được giữ trong lịch sử)",
    },
    "fact.outcome.historical": {
        "en": "Recorded in the history of {fact}: {value} (no longer current)",
        "vi": "Đã ghi vào lịch sử của {fact}: {value} (không còn hiện hành)",
    },
    "fact.outcome.proposed": {
        "en": "Proposal {id} waits for your approval: {fact} = {value}",
        "vi": "Đề xuất {id} đang chờ bạn duyệt: {fact} = {value}",
    },
    "fact.proposal_pending": {
        "en": "The same change already waits as proposal {id}: {fact} = {value}",
        "vi": "Thay đổi này đã có trong đề xuất {id} đang chờ duyệt: {fact} = {value}",
    },
    "fact.proposal_rejected": {
        "en": "You rejected this change before (proposal {id}); it is not proposed again",
        "vi": "Bạn đã từ chối thay đổi này trước đây (đề xuất {id}); nó không được đề xuất lại",
    },
    "fact.reason.job": {
        "en": "An unattended job wants to change {fact}; changes from jobs wait for you",
        "vi": "Một tác vụ tự động muốn thay đổi {fact}; thay đổi từ tác vụ phải chờ bạn duyệt",
    },
    "fact.reason.contradicts_user": {
        "en": "The assistant inferred a value for {fact} that contradicts what you said",
        "vi": "Trợ lý suy ra một giá trị cho {fact} trái với điều bạn đã nói",
    },
    "fact.already_applied": {
        "en": "{fact} = {value} was already saved from this proposal",
        "vi": "{fact} = {value} đã được lưu từ đề xuất này",
    },
    "fact.stale": {
        "en": "Not applied: {fact} changed after this proposal was made; it is now stale",
        "vi": "Không áp dụng: {fact} đã thay đổi sau khi đề xuất được tạo; đề xuất đã lỗi thời",
    },
    "fact.value": {
        "en": "{fact}: {value} ({basis}, from {since} to {until})",
        "vi": "{fact}: {value} ({basis}, từ {since} đến {until})",
    },
    "fact.open_end": {
        "en": "now",
        "vi": "nay",
    },
    "facts.line": {
        "en": "{fact}: {value} ({basis}, since {since})",
        "vi": "{fact}: {value} ({basis}, từ {since})",
    },
    "facts.line_until": {
        "en": "{fact}: {value} ({basis}, since {since}, until {until})",
        "vi": "{fact}: {value} ({basis}, từ {since}, đến {until})",
    },
    "facts.omitted": {
        "en": "({count} more facts not shown)",
        "vi": "(còn {count} dữ kiện khác không hiển thị)",
    },
    "facts.none": {
        "en": "No facts yet",
        "vi": "Chưa có dữ kiện nào",
    },
    "facts.broken": {
        "en": "Skipped a broken fact file: {error}",
        "vi": "Bỏ qua một tệp dữ kiện bị hỏng: {error}",
    },
    "proposals.none": {
        "en": "No proposals waiting",
        "vi": "Không có đề xuất nào đang chờ",
    },
    "proposals.line": {
        "en": "{id} [{status}] {summary} ({origin}, {created}): {reason}",
        "vi": "{id} [{status}] {summary} ({origin}, {created}): {reason}",
    },
    "proposal.status.pending": {"en": "pending", "vi": "chờ duyệt"},
    "proposal.status.approved": {"en": "approved", "vi": "đã duyệt"},
    "proposal.status.rejected": {"en": "rejected", "vi": "đã từ chối"},
    "proposal.status.stale": {"en": "stale", "vi": "lỗi thời"},
    "proposals.broken": {
        "en": "Skipped a broken proposal file: {error}",
        "vi": "Bỏ qua một tệp đề xuất bị hỏng: {error}",
    },
    "proposal.approved": {
        "en": "Approved {id}: {message}",
        "vi": "Đã duyệt {id}: {message}",
    },
    "proposal.stale": {
        "en": "Proposal {id} is stale: {message}",
        "vi": "Đề xuất {id} đã lỗi thời: {message}",
    },
    "proposal.rejected": {
        "en": "Rejected {id}",
        "vi": "Đã từ chối {id}",
    },
    "demo.step.init": {
        "en": "A fresh workspace in the owner's time zone",
        "vi": "Một không gian làm việc mới theo múi giờ của chủ nhân",
    },
    "demo.step.before": {
        "en": "What trinho already knew: facts the owner stated, and MEMORY.md",
        "vi": "Những gì trinho đã biết: các dữ kiện chủ nhân đã nói, và MEMORY.md",
    },
    "demo.step.week": {
        "en": "One week, Monday to Sunday: the owner talks to the assistant, which has the "
        "memory tools",
        "vi": "Một tuần, thứ Hai đến Chủ nhật: chủ nhân trò chuyện với trợ lý, trợ lý có các "
        "công cụ bộ nhớ",
    },
    "demo.step.condense": {
        "en": "Sunday evening: the weekly condensation; code, not the model, decides what applies",
        "vi": "Tối Chủ nhật: cô đọng hằng tuần; mã, không phải mô hình, quyết định điều gì "
        "được áp dụng",
    },
    "demo.step.notify": {
        "en": "The one notification of the run",
        "vi": "Thông báo duy nhất của lần chạy",
    },
    "demo.step.decide": {
        "en": "The owner decides what the gate held: approves an edit, rejects a removal, "
        "leaves the rest waiting",
        "vi": "Chủ nhân quyết định những gì đang chờ duyệt: duyệt bản sửa, từ chối việc xoá, "
        "để phần còn lại chờ",
    },
    "demo.step.memory": {
        "en": "MEMORY.md at the end of the week",
        "vi": "MEMORY.md cuối tuần",
    },
    "demo.step.facts": {
        "en": "The facts with their history, and every proposal, waiting or decided",
        "vi": "Các dữ kiện cùng lịch sử của chúng, và mọi đề xuất, đang chờ hay đã quyết định",
    },
    "demo.step.search": {
        "en": "memory_search: accents optional, every kind of file",
        "vi": "memory_search: gõ dấu hay không đều được, tìm trong mọi loại tệp",
    },
    "demo.step.context": {
        "en": "Monday 07:40: the context of the next turn",
        "vi": "Thứ Hai 07:40: ngữ cảnh của lượt tiếp theo",
    },
    "demo.created": {"en": "  created: {created}", "vi": "  đã tạo: {created}"},
    "demo.model.scripted": {
        "en": "  model: {name}, a scripted model answering with recorded replies ({data}); "
        "set {env} (e.g. ollama:qwen3:8b) to run the week with a real one",
        "vi": "  mô hình: {name}, mô hình kịch bản trả lời bằng câu trả lời ghi sẵn ({data}); "
        "đặt {env} (ví dụ ollama:qwen3:8b) để chạy tuần này với mô hình thật",
    },
    "demo.model.configured": {
        "en": "  model: {name} (from {source}); it plays the assistant in the chat, the nightly "
        "job and the condensation, and its answers decide what the week adds",
        "vi": "  mô hình: {name} (từ {source}); nó đóng vai trợ lý trong trò chuyện, tác vụ đêm "
        "và việc cô đọng, câu trả lời của nó quyết định tuần này thêm gì",
    },
    "demo.model.used": {"en": "model: {name}", "vi": "mô hình: {name}"},
    "demo.owner_stated": {
        "en": "the owner states a fact",
        "vi": "chủ nhân nói một dữ kiện",
    },
    "demo.owner_said": {"en": "owner: {text}", "vi": "chủ nhân: {text}"},
    "demo.assistant_said": {"en": "assistant: {text}", "vi": "trợ lý: {text}"},
    "demo.job": {
        "en": "nightly job {job!r} (unattended: what it finds waits for the owner)",
        "vi": "tác vụ đêm {job!r} (không ai theo dõi: điều nó tìm được phải chờ chủ nhân)",
    },
    "demo.tool.saved": {"en": "saved at {path}:{line}", "vi": "đã lưu tại {path}:{line}"},
    "demo.tool.why": {"en": "why: {reason}", "vi": "lý do: {reason}"},
    "demo.tool.error": {"en": "refused: {error}", "vi": "bị từ chối: {error}"},
    "demo.announced": {
        "en": "Announced once ({count} notification in the outbox), on the console channel:",
        "vi": "Đã thông báo một lần ({count} thông báo trong hộp thư đi), qua kênh console:",
    },
    "demo.nothing_announced": {
        "en": "Nothing was held, so nothing was announced.",
        "vi": "Không có gì phải chờ duyệt nên không có thông báo nào.",
    },
    "demo.nothing_to_decide": {
        "en": "Nothing from this run waits for a decision any more.",
        "vi": "Không còn gì của lần chạy này chờ quyết định.",
    },
    "demo.nothing_lost": {
        "en": "Every line of the old MEMORY.md is in this file or in a proposal: nothing lost.",
        "vi": "Mọi dòng của MEMORY.md cũ đều có trong tệp này hoặc trong một đề xuất: "
        "không mất gì.",
    },
    "demo.lost": {
        "en": "LOST (a bug, please report it): {lines}",
        "vi": "BỊ MẤT (đây là lỗi, xin hãy báo): {lines}",
    },
    "demo.no_hits": {"en": "  no hits", "vi": "  không có kết quả"},
    "demo.context.system": {
        "en": "System block (every turn: MEMORY.md and the facts index):",
        "vi": "Khối hệ thống (mỗi lượt: MEMORY.md và chỉ mục dữ kiện):",
    },
    "demo.context.preamble": {
        "en": "Before the owner's message (yesterday's and today's notes):",
        "vi": "Trước tin nhắn của chủ nhân (ghi chú hôm qua và hôm nay):",
    },
    "demo.file": {"en": "The file {path} holds:", "vi": "Tệp {path} có nội dung:"},
    "demo.removed": {
        "en": "The demo's workspace was a temporary folder; it has been removed. "
        "To explore it afterwards: trinho demo --keep DIR",
        "vi": "Không gian làm việc của bản demo là thư mục tạm và đã được xoá. "
        "Để xem lại sau: trinho demo --keep DIR",
    },
    "demo.kept": {
        "en": "The workspace is kept in {path}. Explore it: export TRINHO_HOME={path}, then "
        'trinho facts, trinho proposals, trinho search "Đà Nẵng"',
        "vi": "Không gian làm việc được giữ ở {path}. Xem thử: export TRINHO_HOME={path}, rồi "
        'trinho facts, trinho proposals, trinho search "Đà Nẵng"',
    },
    "demo.before.recorded": {
        "en": "Set up by the demo from its recorded data, not by {name}; {name} plays from "
        "step 3 on.",
        "vi": "Bản demo dựng sẵn phần này từ dữ liệu ghi sẵn, không phải {name}; {name} bắt "
        "đầu từ bước 3.",
    },
    "demo.no_tool": {
        "en": "(no memory tool called)",
        "vi": "(không gọi công cụ bộ nhớ nào)",
    },
    "demo.no_reply": {
        "en": "(no reply in words)",
        "vi": "(không có câu trả lời bằng lời)",
    },
    "demo.tool.found": {"en": "{count} hits", "vi": "{count} kết quả"},
    "demo.tool.read": {"en": "read {path}:{start}-{end}", "vi": "đã đọc {path}:{start}-{end}"},
    "demo.tool.listed": {
        "en": "{count} proposals waiting",
        "vi": "{count} đề xuất đang chờ",
    },
    "demo.nothing_new_announced": {
        "en": "The gate held changes, but none is a new proposal, so nothing was announced.",
        "vi": "Cổng đã giữ lại thay đổi, nhưng không có đề xuất mới nào nên không có thông báo.",
    },
    "demo.waits": {
        "en": "Proposal {id} ({cls}) waits for the owner: {reason}",
        "vi": "Đề xuất {id} ({cls}) đang chờ chủ nhân: {reason}",
    },
    "demo.nothing_held": {
        "en": "The gate held nothing in this run: there is nothing to decide.",
        "vi": "Lần chạy này cổng không giữ lại gì: không có gì để quyết định.",
    },
    "demo.none_asked": {
        "en": "What the gate held was not proposed again (see step 4): there is nothing to decide.",
        "vi": "Những gì cổng giữ lại không được đề xuất lại (xem bước 4): không có gì để quyết "
        "định.",
    },
    "search.none": {
        "en": "No matches",
        "vi": "Không tìm thấy kết quả nào",
    },
    "index.progress": {
        "en": "Indexing",
        "vi": "Đang lập chỉ mục",
    },
    "index.embedding": {
        "en": "Embedding",
        "vi": "Đang tính vector",
    },
    "index.rate": {
        "en": "{rate} entries/s",
        "vi": "{rate} mục/giây",
    },
    "search.why": {
        "en": "why: {reasons}",
        "vi": "lý do: {reasons}",
    },
    "search.lexical_only": {
        "en": "lexical rank",
        "vi": "thứ hạng theo từ",
    },
    "search.entities": {
        "en": "people named: {names}",
        "vi": "người được nhắc tên: {names}",
    },
    "index.rebuilt": {
        "en": "Search index rebuilt: {documents} entries",
        "vi": "Đã dựng lại chỉ mục tìm kiếm: {documents} mục",
    },
    "index.refreshed": {
        "en": "Search index up to date: {changed} files re-read, {documents} entries",
        "vi": "Chỉ mục tìm kiếm đã cập nhật: đọc lại {changed} tệp, {documents} mục",
    },
    "condense.prompt.memory": {
        "en": "## Current MEMORY.md (between the two markers)",
        "vi": "## MEMORY.md hiện tại (giữa hai dấu mốc)",
    },
    "condense.prompt.week": {
        "en": "## Notes and conversations, {since} to {today} (part {part} of {of})",
        "vi": "## Ghi chú và hội thoại từ {since} đến {today} (phần {part}/{of})",
    },
    "condense.prompt.screen": {"en": "## Lines to judge", "vi": "## Các dòng cần xét"},
    "condense.stale": {
        "en": "Not applied: {reason}",
        "vi": "Không áp dụng: {reason}",
    },
    "condense.stale.memory_changed": {
        "en": "MEMORY.md changed since this rewrite was held; run condensation again",
        "vi": "MEMORY.md đã thay đổi từ khi bản viết lại này được giữ; hãy chạy cô đọng lại",
    },
    "condense.stale.line_gone": {
        "en": "the line is no longer in MEMORY.md: {line}",
        "vi": "dòng này không còn trong MEMORY.md: {line}",
    },
    "condense.approved.removed": {
        "en": "The line was removed from MEMORY.md.",
        "vi": "Đã xoá dòng khỏi MEMORY.md.",
    },
    "condense.approved.edited": {
        "en": "The line was replaced in MEMORY.md.",
        "vi": "Đã thay dòng trong MEMORY.md.",
    },
    "condense.approved.strange_date": {
        "en": "The dated line was written to MEMORY.md.",
        "vi": "Đã ghi dòng có ngày vào MEMORY.md.",
    },
    "condense.approved.malformed": {
        "en": "The line was added to MEMORY.md as it is.",
        "vi": "Đã thêm nguyên dòng vào MEMORY.md.",
    },
    "condense.approved.suspicious": {
        "en": "MEMORY.md was replaced by the held rewrite.",
        "vi": "MEMORY.md đã được thay bằng bản viết lại đang chờ.",
    },
    "condense.approved.added": {
        "en": "The line was added to MEMORY.md.",
        "vi": "Đã thêm dòng vào MEMORY.md.",
    },
    "condense.approved.date_changed": {
        "en": "The date was changed in MEMORY.md.",
        "vi": "Đã đổi ngày trong MEMORY.md.",
    },
    "condense.outcome.done": {
        "en": "Condensation {run} ({since} to {today}): done",
        "vi": "Cô đọng {run} ({since} đến {today}): xong",
    },
    "condense.outcome.dry_run": {
        "en": "Condensation {run} ({since} to {today}), dry run: nothing was written",
        "vi": "Cô đọng {run} ({since} đến {today}), chạy thử: không ghi gì",
    },
    "condense.outcome.already_done": {
        "en": "Condensation {run}: this week is already condensed",
        "vi": "Cô đọng {run}: tuần này đã được cô đọng",
    },
    "condense.outcome.skipped": {
        "en": "Condensation {run} ({since} to {today}): skipped, nothing changed",
        "vi": "Cô đọng {run} ({since} đến {today}): bỏ qua, không đổi gì",
    },
    "condense.outcome.resumed": {
        "en": "Condensation {run}: an interrupted run was finished",
        "vi": "Cô đọng {run}: đã hoàn tất lần chạy bị gián đoạn",
    },
    "condense.already": {
        "en": "Run {run} already condensed this week (report: {report}); use --force to run again",
        "vi": "Lần chạy {run} đã cô đọng tuần này (báo cáo: {report}); dùng --force để chạy lại",
    },
    "condense.resumed": {
        "en": "MEMORY.md was already written by {run}; its proposals and announcement are now done",
        "vi": "MEMORY.md đã được {run} ghi; các đề xuất và thông báo của nó nay đã xong",
    },
    "condense.no_material": {
        "en": "No notes or conversations from {since} to {today}: nothing to condense",
        "vi": "Không có ghi chú hay hội thoại nào từ {since} đến {today}: không có gì để cô đọng",
    },
    "condense.no_room": {
        "en": "MEMORY.md is about {memory} tokens: with [condense] context_tokens = {context} "
        "no room is left for the week's notes; raise context_tokens in .trinho/config.toml",
        "vi": "MEMORY.md khoảng {memory} token: với [condense] context_tokens = {context} không "
        "còn chỗ cho ghi chú của tuần; hãy tăng context_tokens trong .trinho/config.toml",
    },
    "condense.no_room_archive": {
        "en": "MEMORY.md is about {memory} tokens: with [condense] context_tokens = {context} "
        "no room is left for the week's notes. An archive proposal waits that would move the "
        "oldest entries out: approve it with `trinho approve {id}` (or raise context_tokens in "
        ".trinho/config.toml)",
        "vi": "MEMORY.md khoảng {memory} token: với [condense] context_tokens = {context} không "
        "còn chỗ cho ghi chú của tuần. Một đề xuất lưu trữ đang chờ, sẽ chuyển các mục cũ nhất "
        "ra ngoài: hãy duyệt bằng `trinho approve {id}` (hoặc tăng context_tokens trong "
        ".trinho/config.toml)",
    },
    "condense.notify.archive_again": {
        "en": "MEMORY.md is over its budget ({tokens} of {budget} tokens) and the archive "
        "proposal {id} still waits: asked again (`trinho approve {id}`).",
        "vi": "MEMORY.md vượt ngân sách ({tokens} trên {budget} token) và đề xuất lưu trữ {id} "
        "vẫn đang chờ: hỏi lại (`trinho approve {id}`).",
    },
    "jobs.failed.title": {
        "en": "Scheduled job {job} failed",
        "vi": "Tác vụ định kỳ {job} bị lỗi",
    },
    "jobs.failed.summary": {
        "en": "The run {run} failed: {error}. Once that is fixed, run it again with `{command}`.",
        "vi": "Lần chạy {run} bị lỗi: {error}. Khi đã sửa xong, hãy chạy lại bằng `{command}`.",
    },
    "jobs.failed.next_slot": {
        "en": "trinho jobs list (it runs again at its next slot)",
        "vi": "trinho jobs list (nó sẽ chạy lại ở lượt kế tiếp)",
    },
    "condense.rewrite_skipped": {
        "en": "Not read by the rewrite: {days} ({reason})",
        "vi": "Chưa được đọc khi viết lại: {days} ({reason})",
    },
    "condense.screen_skipped": {
        "en": "Lines {first}-{last} not screened: {reason}",
        "vi": "Các dòng {first}-{last} chưa được sàng lọc: {reason}",
    },
    "condense.day.used": {
        "en": "  {day}: {notes} notes, {turns} turns",
        "vi": "  {day}: {notes} ghi chú, {turns} lượt hội thoại",
    },
    "condense.day.unused": {
        "en": "  {day}: {notes} notes, {turns} turns (NOT all read, see below)",
        "vi": "  {day}: {notes} ghi chú, {turns} lượt hội thoại (CHƯA đọc hết, xem dưới)",
    },
    "condense.note.hand_edit": {
        "en": "your edit during the run: kept, nothing to approve",
        "vi": "bạn sửa trong lúc chạy: giữ nguyên, không cần duyệt",
    },
    "condense.note.rejected_before": {
        "en": "you rejected this before: kept, not asked again",
        "vi": "bạn đã từ chối trước đây: giữ nguyên, không hỏi lại",
    },
    "condense.prompts": {"en": "Prompts: {versions}", "vi": "Lời nhắc: {versions}"},
    "condense.loss.archived": {
        "en": "Moves {count} entries, verbatim, to memory/archive.md:",
        "vi": "Chuyển nguyên văn {count} mục sang memory/archive.md:",
    },
    "condense.archive_summary": {
        "en": "MEMORY.md archive: {count} least recently dated entries -> memory/archive.md",
        "vi": "Lưu trữ MEMORY.md: {count} mục có ngày cũ nhất -> memory/archive.md",
    },
    "condense.notify.waiting": {
        "en": "{count} earlier proposals still wait, the oldest since {since} "
        "(`trinho proposals`).",
        "vi": "{count} đề xuất trước vẫn đang chờ, cũ nhất từ {since} (`trinho proposals`).",
    },
    "condense.expired": {
        "en": "stale: its old lines are no longer in MEMORY.md as they were",
        "vi": "đã cũ: các dòng cũ của nó không còn nguyên trong MEMORY.md",
    },
    "condense.approved.archive": {
        "en": "Archived: {count} entries moved to memory/archive.md (still searchable)",
        "vi": "Đã lưu trữ: {count} mục chuyển sang memory/archive.md (vẫn tìm được)",
    },
    "condense.archive_stale": {
        "en": "Not applied: some of these lines are no longer in MEMORY.md as they were",
        "vi": "Không áp dụng: một số dòng này không còn nguyên trong MEMORY.md",
    },
    "condense.script": {
        "en": "Edit script: {ops} operations, {ignored} ignored, {chatter} other lines "
        "(never applied)",
        "vi": "Kịch bản sửa: {ops} thao tác, {ignored} bị bỏ qua, {chatter} dòng khác "
        "(không bao giờ áp dụng)",
    },
    "condense.script.whole_file": {
        "en": "Edit script: the model answered with a whole MEMORY.md, gated as a rewrite "
        "({ignored} operations of other parts ignored, {chatter} other lines)",
        "vi": "Kịch bản sửa: mô hình trả lời bằng cả tệp MEMORY.md, được cổng xét như một bản "
        "viết lại ({ignored} thao tác của các phần khác bị bỏ qua, {chatter} dòng khác)",
    },
    "condense.ignored.unreadable": {"en": "unreadable", "vi": "không đọc được"},
    "condense.ignored.not_a_line": {
        "en": "not an entry or a heading",
        "vi": "không phải mục hay tiêu đề",
    },
    "condense.ignored.no_such_line": {"en": "no such line", "vi": "không có dòng đó"},
    "condense.ignored.line_taken": {
        "en": "second operation on that line",
        "vi": "thao tác thứ hai trên dòng đó",
    },
    "condense.ignored.not_an_entry": {"en": "not a dated entry", "vi": "không phải mục có ngày"},
    "condense.ignored.cut": {
        "en": "cut off at the output limit",
        "vi": "bị cắt ở giới hạn đầu ra",
    },
    "condense.ignored.whole_file": {
        "en": "another part answered with the whole file",
        "vi": "một phần khác trả lời bằng cả tệp",
    },
    "condense.screen.accept": {"en": "ACCEPT", "vi": "NHẬN"},
    "condense.screen.reject": {"en": "REJECT", "vi": "BỎ"},
    "condense.screen.unscreened": {"en": "unscreened", "vi": "chưa sàng lọc"},
    "condense.summary": {
        "en": "{auto} changes applied, {held} held for approval; {candidates} new lines: "
        "{accepted} accepted and {rejected} rejected by screening, {unscreened} unscreened; "
        "{calls} model calls, {tokens} tokens; {restarts} restarts after a hand edit",
        "vi": "{auto} thay đổi đã áp dụng, {held} chờ duyệt; {candidates} dòng mới: "
        "{accepted} được nhận và {rejected} bị bỏ khi sàng lọc, {unscreened} chưa sàng lọc; "
        "{calls} lần gọi mô hình, {tokens} token; {restarts} lần làm lại do sửa tay",
    },
    "condense.undo_hint": {
        "en": "The previous MEMORY.md is kept at {path}: trinho condense --undo {run}",
        "vi": "MEMORY.md trước đó được giữ tại {path}: trinho condense --undo {run}",
    },
    "condense.notify.title": {
        "en": "Weekly memory condensation {run}",
        "vi": "Cô đọng trí nhớ hằng tuần {run}",
    },
    "condense.notify.summary": {
        "en": "{auto} changes were applied by themselves; {held} wait for your approval.",
        "vi": "{auto} thay đổi đã tự áp dụng; {held} thay đổi chờ bạn duyệt.",
    },
    "condense.queued": {
        "en": "queued in the outbox, not delivered yet {error}",
        "vi": "đang chờ trong hộp thư đi, chưa gửi được {error}",
    },
    "condense.undone": {
        "en": "Run {run} undone: MEMORY.md restored from {path}; the text it replaced is kept "
        "at {kept}",
        "vi": "Đã hoàn tác {run}: MEMORY.md được khôi phục từ {path}; nội dung bị thay được "
        "giữ tại {kept}",
    },
    "condense.undone_changed": {
        "en": "Note: MEMORY.md had changed since the run (approvals or hand edits); "
        "those changes are in {kept}",
        "vi": "Lưu ý: MEMORY.md đã thay đổi sau lần chạy (duyệt hoặc sửa tay); "
        "các thay đổi đó nằm trong {kept}",
    },
    # Screening that could not be read, and the proposals an undo withdraws.
    "gate.reason.screen_unreadable": {
        "en": "the screening answer gave no verdict that can be read for this new line; "
        "it reaches MEMORY.md only if you approve it",
        "vi": "câu trả lời sàng lọc không có nhận định đọc được cho dòng mới này; "
        "dòng chỉ vào MEMORY.md nếu bạn duyệt",
    },
    "gate.reason.screen_failed": {
        "en": "the screening call failed ({error}); this new line reaches MEMORY.md only if "
        "you approve it",
        "vi": "lần gọi sàng lọc thất bại ({error}); dòng mới này chỉ vào MEMORY.md nếu bạn duyệt",
    },
    "condense.screen.unreadable": {"en": "UNREADABLE, held", "vi": "KHÔNG ĐỌC ĐƯỢC, chờ duyệt"},
    "condense.screen_failed": {
        "en": "Lines {first}-{last}: the screening call failed ({reason}); they wait for your "
        "approval",
        "vi": "Các dòng {first}-{last}: lần gọi sàng lọc thất bại ({reason}); chúng chờ bạn duyệt",
    },
    "condense.summary.unreadable": {
        "en": "{count} new lines wait for your approval: their screening could not be read",
        "vi": "{count} dòng mới chờ bạn duyệt: không đọc được kết quả sàng lọc của chúng",
    },
    "condense.withdrawn": {
        "en": "withdrawn: run {run} was undone (trinho condense --undo {run})",
        "vi": "đã rút lại: lần chạy {run} đã được hoàn tác (trinho condense --undo {run})",
    },
    "condense.undone_withdrawn": {
        "en": "Withdrawn: {count} pending proposals of run {run}; they can no longer be approved",
        "vi": "Đã rút lại {count} đề xuất đang chờ của lần chạy {run}; không thể duyệt chúng nữa",
    },
    "context.system_intro": {
        "en": "What you remember about your owner. Dated lines say when each was learned or last "
        "confirmed. Older notes, past conversations and fact history are not shown here: use "
        "memory_search to find them.",
        "vi": "Những gì bạn nhớ về chủ nhân. Mỗi dòng có ngày: ngày biết được hoặc xác nhận lần "
        "cuối. Ghi chú cũ, các cuộc trò chuyện trước và lịch sử dữ kiện không hiện ở đây: dùng "
        "memory_search để tìm.",
    },
    "context.loaded_by_openclaw": {
        "en": "OpenClaw puts these workspace files in your prompt itself, so they are not "
        "repeated here: {files}.",
        "vi": "OpenClaw tự đưa các tệp này của workspace vào prompt, nên chúng không được "
        "lặp lại ở đây: {files}.",
    },
    "facts.digest_heading": {"en": "# Facts (generated)", "vi": "# Dữ kiện (tự sinh)"},
    "facts.digest_note": {
        "en": "Generated by trinho from users/*/facts/ and rewritten on each change: do not "
        "edit this file, change a fact with user_memory_save or `trinho facts` instead.",
        "vi": "trinho tự sinh tệp này từ users/*/facts/ và viết lại mỗi khi có thay đổi: đừng "
        "sửa tệp này, hãy đổi dữ kiện bằng user_memory_save hoặc `trinho facts`.",
    },
    "context.memory_heading": {
        "en": "## Long-term memory (MEMORY.md)",
        "vi": "## Trí nhớ dài hạn (MEMORY.md)",
    },
    "context.facts_heading": {
        "en": "## Facts about the owner",
        "vi": "## Dữ kiện về chủ nhân",
    },
    "context.empty": {"en": "(nothing yet)", "vi": "(chưa có gì)"},
    "context.yesterday": {
        "en": "## Notes from yesterday ({date})",
        "vi": "## Ghi chú hôm qua ({date})",
    },
    "context.today": {"en": "## Notes from today ({date})", "vi": "## Ghi chú hôm nay ({date})"},
    "context.note_left_out": {
        "en": "({path} is left out of this context: {reason})",
        "vi": "({path} bị bỏ ra khỏi ngữ cảnh này: {reason})",
    },
    "context.omitted": {
        "en": "({count} older entries are not shown here; memory_search finds them.)",
        "vi": "({count} mục cũ hơn không hiện ở đây; memory_search tìm được chúng.)",
    },
    "context.facts_omitted": {
        "en": "({count} more facts are not shown here; memory_search finds them.)",
        "vi": "(Còn {count} dữ kiện không hiện ở đây; memory_search tìm được chúng.)",
    },
    "context.notes_omitted": {
        "en": "({count} earlier notes of these two days are not shown; memory_search finds them.)",
        "vi": "({count} ghi chú sớm hơn của hai ngày này không hiện; "
        "memory_search tìm được chúng.)",
    },
    "context.budget_warning.memory": {
        "en": "MEMORY.md no longer fits its prompt budget ({budget} tokens): {omitted} older "
        "entries are left out of the prompt (memory_search still finds them). Raise [context] "
        "{setting} in .trinho/config.toml, or let the weekly condensation shorten MEMORY.md.",
        "vi": "MEMORY.md đã vượt ngân sách prompt ({budget} token): {omitted} mục cũ hơn không "
        "được đưa vào prompt (memory_search vẫn tìm được). Hãy tăng [context] {setting} trong "
        ".trinho/config.toml, hoặc để lần cô đọng hằng tuần rút gọn MEMORY.md.",
    },
    "context.budget_warning.facts": {
        "en": "The facts index no longer fits its prompt budget ({budget} tokens): {omitted} "
        "facts are left out of the prompt (memory_search still finds them). Raise [context] "
        "{setting} in .trinho/config.toml.",
        "vi": "Danh mục dữ kiện đã vượt ngân sách prompt ({budget} token): {omitted} dữ kiện "
        "không được đưa vào prompt (memory_search vẫn tìm được). Hãy tăng [context] {setting} "
        "trong .trinho/config.toml.",
    },
    "context.budget_warning.notes": {
        "en": "Yesterday's and today's notes no longer fit their prompt budget ({budget} "
        "tokens): {omitted} earlier notes are left out of the prompt (memory_search still "
        "finds them). Raise [context] {setting} in .trinho/config.toml.",
        "vi": "Ghi chú hôm qua và hôm nay đã vượt ngân sách prompt ({budget} token): {omitted} "
        "ghi chú sớm hơn không được đưa vào prompt (memory_search vẫn tìm được). Hãy tăng "
        "[context] {setting} trong .trinho/config.toml.",
    },
    "context.budget_title": {
        "en": "The prompt's memory is over budget",
        "vi": "Phần trí nhớ trong prompt đã vượt ngân sách",
    },
    "context.cli_system": {
        "en": "=== System block ({tokens} tokens) ===",
        "vi": "=== Khối hệ thống ({tokens} token) ===",
    },
    "context.cli_preamble": {
        "en": "=== Preamble before the turn's first message ({tokens} tokens) ===",
        "vi": "=== Phần mở đầu trước tin nhắn đầu tiên ({tokens} token) ===",
    },
    "mcp.token_created": {
        "en": "Created an MCP bearer token in {path} ([mcp] token); clients send it as "
        "'Authorization: Bearer {token}'",
        "vi": "Đã tạo mã bearer MCP trong {path} ([mcp] token); ứng dụng khách gửi nó dưới dạng "
        "'Authorization: Bearer {token}'",
    },
    "mcp.token_exists": {
        "en": "{path} already has an MCP bearer token ([mcp] token); nothing changed",
        "vi": "{path} đã có mã bearer MCP ([mcp] token); không đổi gì",
    },
    "digest.title": {
        "en": "Waiting for your approval, {date}",
        "vi": "Đang chờ bạn duyệt, {date}",
    },
    "digest.summary": {
        "en": "New since the last digest: {count} changes, from {origins}.",
        "vi": "Mới từ lần tóm tắt trước: {count} thay đổi, từ {origins}.",
    },
    "decider.rejected": {
        "en": "Rejected {id}",
        "vi": "Đã từ chối {id}",
    },
    "jobs.digest_done": {
        "en": "{count} new proposals announced",
        "vi": "đã thông báo {count} đề xuất mới",
    },
    "jobs.facts_nothing": {
        "en": "no conversation to read",
        "vi": "không có hội thoại nào để đọc",
    },
    "jobs.facts_prompt": {
        "en": "Nightly review. Below are the owner's conversations since {since}. Find lasting "
        "facts about the owner (where they live, names of people close to them, preferences, "
        "health, plans with dates) and save each with user_memory_save, basis 'user' when the "
        "owner said it and 'inferred' when you concluded it. They wait for the owner's "
        "approval. Save nothing that is not clearly stated or implied. Answer with one line "
        "saying how many facts you saved.",
        "vi": "Rà soát ban đêm. Dưới đây là các cuộc trò chuyện của chủ nhân từ {since}. Hãy tìm "
        "những dữ kiện lâu dài về chủ nhân (nơi ở, tên người thân, sở thích, sức khoẻ, kế hoạch "
        "có ngày tháng) và lưu từng cái bằng user_memory_save, basis 'user' khi chủ nhân nói ra "
        "và 'inferred' khi bạn suy ra. Chúng sẽ chờ chủ nhân duyệt. Đừng lưu điều gì không được "
        "nói rõ hoặc hàm ý rõ. Trả lời bằng một dòng cho biết đã lưu bao nhiêu dữ kiện.",
    },
    "jobs.condense_done": {
        "en": "{run}: {outcome}, {auto} changes applied, {held} held for you",
        "vi": "{run}: {outcome}, {auto} thay đổi đã áp dụng, {held} đang chờ bạn duyệt",
    },
    "jobs.condense_already": {
        "en": "{run}: this slot is already condensed",
        "vi": "{run}: lần này đã được cô đọng rồi",
    },
    "jobs.prompt_done": {
        "en": "{calls} tool calls ({errors} failed), {proposals} new proposals",
        "vi": "{calls} lần gọi công cụ ({errors} lỗi), {proposals} đề xuất mới",
    },
    "serve.no_model": {
        "en": "I cannot answer yet: {error}",
        "vi": "Mình chưa trả lời được: {error}",
    },
    "serve.chat_failed": {
        "en": "Your message is saved, but I could not answer: {error}",
        "vi": "Tin nhắn của bạn đã được lưu, nhưng mình không trả lời được: {error}",
    },
    "chat.intro": {
        "en": "Chatting with your assistant; an empty line or Ctrl-D ends.",
        "vi": "Đang trò chuyện với trợ lý; một dòng trống hoặc Ctrl-D để kết thúc.",
    },
    "jobs.line": {
        "en": "{name}: {schedule}, next {next}, last run: {last}",
        "vi": "{name}: {schedule}, lần tới {next}, lần chạy trước: {last}",
    },
    "jobs.never": {"en": "never", "vi": "chưa chạy"},
    "jobs.busy": {
        "en": "Another process is running the jobs; nothing done",
        "vi": "Một tiến trình khác đang chạy các việc; không làm gì",
    },
    "jobs.nothing_due": {"en": "Nothing is due", "vi": "Không có việc nào đến hạn"},
    "jobs.ran": {"en": "{run}: {status} {detail}", "vi": "{run}: {status} {detail}"},
    "jobs.clock_back": {
        "en": "The clock moved back: {job} was covered until {until}; it resumes from now",
        "vi": "Đồng hồ đã lùi lại: {job} đã được tính đến {until}; lịch tiếp tục từ bây giờ",
    },
    # A suspicious rewrite as the owner reviews it, and a run over a workspace without MEMORY.md.
    "condense.loss.removed": {
        "en": "would remove {count} of {total} lines:",
        "vi": "sẽ xoá {count} trong số {total} dòng:",
    },
    "condense.loss.added": {"en": "would add {count} lines:", "vi": "sẽ thêm {count} dòng:"},
    "condense.loss.more": {"en": "… and {count} more", "vi": "… và {count} dòng nữa"},
    "condense.no_before": {
        "en": "There was no MEMORY.md before this run: trinho condense --undo {run} removes it",
        "vi": "Trước lần chạy này chưa có MEMORY.md: trinho condense --undo {run} sẽ xoá nó",
    },
    "condense.undone_removed": {
        "en": "Run {run} undone: there was no MEMORY.md before it, so MEMORY.md is removed; "
        "the text it had is kept at {kept}",
        "vi": "Đã hoàn tác {run}: trước lần chạy chưa có MEMORY.md nên MEMORY.md đã được xoá; "
        "nội dung của nó được giữ tại {kept}",
    },
    "condense.undone_absent": {
        "en": "Run {run} undone: there was no MEMORY.md before it, and there is none now; "
        "nothing changed",
        "vi": "Đã hoàn tác {run}: trước lần chạy chưa có MEMORY.md, và giờ cũng không có; "
        "không đổi gì",
    },
    # ---- trinho web: the review page ------------------------------------------------------
    "web.login_link": {
        "en": "Open the review page (the link works once, for 10 minutes): {url}",
        "vi": "Mở trang duyệt (liên kết dùng được một lần, trong 10 phút): {url}",
    },
    "web.title": {"en": "trinho: review", "vi": "trinho: duyệt"},
    "web.nav.queue": {"en": "Waiting", "vi": "Đang chờ"},
    "web.nav.runs": {"en": "Runs", "vi": "Các lần chạy"},
    "web.nav.memory": {"en": "MEMORY.md", "vi": "MEMORY.md"},
    "web.nav.archive": {"en": "Archive", "vi": "Lưu trữ"},
    "web.nav.facts": {"en": "Facts", "vi": "Dữ kiện"},
    "web.search": {"en": "Search", "vi": "Tìm"},
    "web.queue.none": {"en": "Nothing waits for you.", "vi": "Không có gì đang chờ bạn."},
    "web.queue.run": {"en": "Run {run}", "vi": "Lần chạy {run}"},
    "web.queue.origin": {"en": "From {origin}", "vi": "Từ {origin}"},
    "web.approve": {"en": "Approve", "vi": "Duyệt"},
    "web.reject": {"en": "Reject", "vi": "Từ chối"},
    "web.reason": {"en": "Why (optional)", "vi": "Lý do (không bắt buộc)"},
    "web.approve_all": {
        "en": "Approve all {count} of this run",
        "vi": "Duyệt cả {count} thay đổi của lần chạy này",
    },
    "web.fact.change": {"en": "Fact {key} (user {user})", "vi": "Dữ kiện {key} (người {user})"},
    "web.fact.basis": {"en": "basis: {basis}", "vi": "căn cứ: {basis}"},
    "web.fact.valid": {"en": "valid {since} to {until}", "vi": "hiệu lực {since} đến {until}"},
    "web.fact.none": {"en": "(none)", "vi": "(chưa có)"},
    "web.archive.lines": {
        "en": "Move these {count} lines to memory/archive.md:",
        "vi": "Chuyển {count} dòng này sang memory/archive.md:",
    },
    "web.side.before": {"en": "Now", "vi": "Hiện tại"},
    "web.side.after": {"en": "Proposed", "vi": "Đề xuất"},
    "web.runs.none": {"en": "No condensation has run yet.", "vi": "Chưa có lần rút gọn nào."},
    "web.run.no_report": {"en": "This run left no report.", "vi": "Lần chạy này không có báo cáo."},
    "web.run.days": {"en": "Days read", "vi": "Các ngày đã đọc"},
    "web.run.changes": {"en": "Changes", "vi": "Thay đổi"},
    "web.run.auto": {"en": "applied by itself", "vi": "tự áp dụng"},
    "web.run.held": {"en": "held for you", "vi": "chờ bạn duyệt"},
    "web.run.screening": {"en": "Screening", "vi": "Sàng lọc"},
    "web.run.model": {
        "en": "Model: {calls} calls, {input} tokens in, {output} tokens out",
        "vi": "Mô hình: {calls} lần gọi, {input} token vào, {output} token ra",
    },
    "web.run.undo": {"en": "Undo this run…", "vi": "Hoàn tác lần chạy này…"},
    "web.run.undo_confirm": {
        "en": "Undo run {run}? MEMORY.md goes back to what it was before the run (the current "
        "text is kept in the run's folder) and its waiting changes are withdrawn.",
        "vi": "Hoàn tác lần chạy {run}? MEMORY.md trở lại như trước lần chạy (nội dung hiện tại "
        "được giữ trong thư mục của lần chạy) và các thay đổi đang chờ của nó bị rút lại.",
    },
    "web.run.undo_yes": {"en": "Yes, undo {run}", "vi": "Đồng ý, hoàn tác {run}"},
    "web.run.undone": {
        "en": "Run {run} undone; {count} waiting changes withdrawn.",
        "vi": "Đã hoàn tác {run}; rút lại {count} thay đổi đang chờ.",
    },
    "web.file.empty": {"en": "{path} is empty or absent.", "vi": "{path} trống hoặc chưa có."},
    "web.facts.none": {"en": "No facts yet.", "vi": "Chưa có dữ kiện nào."},
    "web.search.none": {"en": "No hits for {query}.", "vi": "Không tìm thấy gì cho {query}."},
    "web.login.token": {"en": "Access token", "vi": "Mã truy cập"},
    "web.login.go": {"en": "Log in", "vi": "Đăng nhập"},
    "web.refused": {"en": "Refused.", "vi": "Bị từ chối."},
    "web.back": {"en": "Back", "vi": "Quay lại"},
}

CATALOG.update(ERROR_TEXTS)


def t(locale: str, key: str, /, **params: object) -> str:
    """The message `key` in `locale` (English when that locale lacks it), filled with params."""
    entry = CATALOG[key]
    return entry.get(locale, entry["en"]).format(**params)
