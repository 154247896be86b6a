"""What the catalogue's rows cite: severities by letter, the spec pages, and example messages."""

from __future__ import annotations

from mcpspy.analysis.model import Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
STDIO = "2026-07-28/basic/transports/stdio.mdx"
BASE = "2026-07-28/basic/index.mdx"
LIFECYCLE = "2025-11-25/basic/lifecycle.mdx"
PROGRESS = "2025-11-25/basic/utilities/progress.mdx; 2026-07-28/basic/patterns/progress.mdx"
MRTR_DOC = "2026-07-28/basic/patterns/mrtr.mdx"
SUBS_DOC = "2026-07-28/basic/patterns/subscriptions.mdx"
CACHING = "2026-07-28/server/utilities/caching.mdx"
REQ = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{...}}}'
RES = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}'
