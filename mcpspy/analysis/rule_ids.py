"""Every rule's id as a checked name: a misspelt member fails mypy, not a fixture.

The value is the public id (``mcpspy rules``, ``report --json``, CI configs);
the member name is the same id in capitals, so ``grep -rn STDOUT_NOT_JSON
mcpspy/`` finds the one place that raises it. The stdout and stdin framing
rules are twins: each pipe has its own member, and the framing family picks one
by the stream it read. Each group below is raised by one file of rules/.
"""

from __future__ import annotations

import enum


class RuleId(enum.StrEnum):
    # rules/framing.py: how a pipe's bytes become lines
    STDOUT_NOT_JSON = "stdout.not-json"
    STDOUT_GLUED_PREFIX = "stdout.glued-prefix"
    STDOUT_MULTILINE_JSON = "stdout.multiline-json"
    STDOUT_CONTENT_LENGTH = "stdout.content-length"
    STDOUT_INVALID_UTF8 = "stdout.invalid-utf8"
    STDOUT_CRLF = "stdout.crlf"
    STDOUT_UNTERMINATED = "stdout.unterminated"
    STDOUT_BLANK_LINE = "stdout.blank-line"
    STDOUT_OVERSIZED_LINE = "stdout.oversized-line"
    STDIN_NOT_JSON = "stdin.not-json"
    STDIN_GLUED_PREFIX = "stdin.glued-prefix"
    STDIN_MULTILINE_JSON = "stdin.multiline-json"
    STDIN_CONTENT_LENGTH = "stdin.content-length"
    STDIN_INVALID_UTF8 = "stdin.invalid-utf8"
    STDIN_CRLF = "stdin.crlf"
    STDIN_UNTERMINATED = "stdin.unterminated"
    STDIN_BLANK_LINE = "stdin.blank-line"
    STDIN_OVERSIZED_LINE = "stdin.oversized-line"
    # rules/envelope.py: the JSON-RPC envelope of one message
    JSONRPC_VERSION = "jsonrpc.version"
    JSONRPC_INVALID = "jsonrpc.invalid"
    JSONRPC_BATCH = "jsonrpc.batch"
    JSONRPC_NULL_ID = "jsonrpc.null-id"
    JSONRPC_ID_TYPE = "jsonrpc.id-type"
    JSONRPC_RESULT_AND_ERROR = "jsonrpc.result-and-error"
    JSONRPC_ERROR_SHAPE = "jsonrpc.error-shape"
    JSONRPC_PARAMS_NOT_OBJECT = "jsonrpc.params-not-object"
    JSONRPC_RESULT_NOT_OBJECT = "jsonrpc.result-not-object"
    JSONRPC_NOTIFICATION_WITH_ID = "jsonrpc.notification-with-id"
    # rules/pairing.py: ids, replies and cancels
    PAIRING_UNKNOWN_ID = "pairing.unknown-id"
    PAIRING_DUPLICATE_RESPONSE = "pairing.duplicate-response"
    PAIRING_DUPLICATE_ID = "pairing.duplicate-id"
    PAIRING_ID_REUSED = "pairing.id-reused"
    PAIRING_REPLY_AFTER_CANCEL = "pairing.reply-after-cancel"
    PAIRING_OUT_OF_ORDER = "pairing.out-of-order"
    PAIRING_SLOW = "pairing.slow"
    PAIRING_UNANSWERED = "pairing.unanswered"
    PAIRING_PENDING_LIMIT = "pairing.pending-limit"
    CANCEL_UNKNOWN_REQUEST = "cancel.unknown-request"
    CANCEL_INITIALIZE = "cancel.initialize"
    # rules/modern.py: 2026-07-28's per-request _meta, results, directions and error codes
    META_MISSING = "meta.missing"
    META_NOT_REJECTED = "meta.not-rejected"
    META_KEY_FORMAT = "meta.key-format"
    ERROR_UNSUPPORTED_VERSION_DATA = "error.unsupported-version-data"
    JSONRPC_DEPRECATED_ERROR_CODE = "jsonrpc.deprecated-error-code"
    VERSION_UNLISTED = "version.unlisted"
    RESULT_MISSING_RESULT_TYPE = "result.missing-result-type"
    CACHE_MISSING_TTL = "cache.missing-ttl"
    DIRECTION_SERVER_REQUEST = "direction.server-request"
    DIRECTION_CLIENT_RESPONSE = "direction.client-response"
    PING_MODERN = "ping.modern"
    PING_NON_EMPTY_RESULT = "ping.non-empty-result"
    # rules/legacy.py: the initialize handshake
    LEGACY_INITIALIZED_MISSING = "legacy.initialized-missing"
    LEGACY_EARLY_REQUEST = "legacy.early-request"
    LEGACY_INITIALIZED_EARLY = "legacy.initialized-early"
    LEGACY_SERVER_EARLY_REQUEST = "legacy.server-early-request"
    LEGACY_REINITIALIZE = "legacy.reinitialize"
    LEGACY_VERSION_UNKNOWN = "legacy.version-unknown"
    LEGACY_VERSION_CHANGED = "legacy.version-changed"
    # rules/capabilities.py
    CAPABILITY_SERVER_UNDECLARED = "capability.server-undeclared"
    CAPABILITY_CLIENT_UNDECLARED = "capability.client-undeclared"
    CAPABILITY_CLIENT_UNNEGOTIATED = "capability.client-unnegotiated"
    CAPABILITY_LIST_CHANGED_UNDECLARED = "capability.list-changed-undeclared"
    CAPABILITY_LOGGING_UNDECLARED = "capability.logging-undeclared"
    # rules/progress_logging.py
    PROGRESS_UNKNOWN_TOKEN = "progress.unknown-token"
    PROGRESS_AFTER_COMPLETION = "progress.after-completion"
    PROGRESS_INVALID = "progress.invalid"
    PROGRESS_NOT_INCREASING = "progress.not-increasing"
    PROGRESS_TOKEN_INVALID = "progress.token-invalid"
    PROGRESS_TOKEN_DUPLICATE = "progress.token-duplicate"
    PROGRESS_CLIENT_SENT = "progress.client-sent"
    LOGGING_INVALID_MESSAGE = "logging.invalid-message"
    # rules/shapes.py
    SCHEMA_RESULT_SHAPE = "schema.result-shape"
    # rules/lifecycle.py
    LIFECYCLE_NO_EXIT_ON_EOF = "lifecycle.no-exit-on-eof"
    LIFECYCLE_CRASH_IN_FLIGHT = "lifecycle.crash-in-flight"
    # rules/tool_schemas.py: tool definitions a client rejects (issue 17)
    TOOLS_SCHEMA_COMBINATOR = "tools.schema-combinator"
    TOOLS_SCHEMA_NOT_OBJECT = "tools.schema-not-object"
    TOOLS_SCHEMA_REQUIRED = "tools.schema-required"
    TOOLS_SCHEMA_DIALECT = "tools.schema-dialect"
    TOOLS_SCHEMA_UNPORTABLE = "tools.schema-unportable"
    TOOLS_DUPLICATE_NAME = "tools.duplicate-name"
    TOOLS_NAME_FORMAT = "tools.name-format"
    # ~~
    # ~~
    # rules/mrtr.py, subscriptions.py, deprecations.py, caching.py: the DIGEST rules (issue 17)
    MRTR_WRONG_METHOD = "mrtr.wrong-method"
    MRTR_EMPTY = "mrtr.empty"
    MRTR_INVALID_INPUT_REQUEST = "mrtr.invalid-input-request"
    MRTR_UNDECLARED_CAPABILITY = "mrtr.undeclared-capability"
    MRTR_REQUEST_STATE = "mrtr.request-state"
    MRTR_RETRY_SAME_ID = "mrtr.retry-same-id"
    MRTR_INPUT_RESPONSES_MISSING = "mrtr.input-responses-missing"
    SUBSCRIPTION_NO_FILTER = "subscription.no-filter"
    SUBSCRIPTION_BEFORE_ACK = "subscription.before-ack"
    SUBSCRIPTION_ID_MISSING = "subscription.id-missing"
    SUBSCRIPTION_UNKNOWN_ID = "subscription.unknown-id"
    SUBSCRIPTION_UNREQUESTED = "subscription.unrequested"
    SUBSCRIPTION_ACK_SUPERSET = "subscription.ack-superset"
    SUBSCRIPTION_AFTER_END = "subscription.after-end"
    SUBSCRIPTION_SERVER_CANCEL = "subscription.server-cancel"
    DEPRECATED_REMOVED_METHOD = "deprecated.removed-method"
    DEPRECATED_FEATURE = "deprecated.feature"
    ERROR_RETIRED_CODE = "error.retired-code"
    ERROR_UNDEFINED_CODE = "error.undefined-code"
    ERROR_MISSING_CAPABILITY_DATA = "error.missing-capability-data"
    ERROR_HEADER_MISMATCH_ON_STDIO = "error.header-mismatch-on-stdio"
    LOGGING_NO_LOG_LEVEL = "logging.no-log-level"
    LOGGING_ON_SUBSCRIPTION = "logging.on-subscription"
    CACHE_INVALID_TTL = "cache.invalid-ttl"
    CACHE_INVALID_SCOPE = "cache.invalid-scope"
    CACHE_SCOPE_CHANGED = "cache.scope-changed"
    CACHE_ON_INPUT_REQUIRED = "cache.on-input-required"
    CACHE_REFETCH_FRESH = "cache.refetch-fresh"
    RESULT_TYPE_INVALID = "result.type-invalid"
    RESULT_TYPE_UNKNOWN = "result.type-unknown"
    LOGGING_INVALID_LOG_LEVEL = "logging.invalid-log-level"
    LOGGING_BELOW_LEVEL = "logging.below-level"
    ERROR_RESERVED_CODE = "error.reserved-code"
    RESOURCE_EMPTY_CONTENTS = "resource.empty-contents"
    DISCOVER_NOT_IMPLEMENTED = "discover.not-implemented"
    ERROR_UNSUPPORTED_VERSION_INCONSISTENT = "error.unsupported-version-inconsistent"
    DIRECTION_CLIENT_NOTIFICATION = "direction.client-notification"
    ERA_FALLBACK_AFTER_MODERN_REPLY = "era.fallback-after-modern-reply"
    # ~~
    # ~~
    # rules/pairing.py, lifecycle.py, requests.py: silent killers of the exchange (issue 17)
    PAIRING_SERVER_REQUEST_UNANSWERED = "pairing.server-request-unanswered"
    LIFECYCLE_FAILED_TO_CONNECT = "lifecycle.failed-to-connect"
    REQUEST_NO_PROGRESS_TOKEN = "request.no-progress-token"
    REQUEST_SENT_AS_NOTIFICATION = "request.sent-as-notification"
    VERSION_REJECTED_NOT_RETRIED = "version.rejected-not-retried"
    # ~~
    # ~~
    # capture integrity: gaps and torn lines (issue 15)
    # rules/capture_integrity.py
    CAPTURE_GAP = "capture.gap"
    CAPTURE_TORN_LINE = "capture.torn-line"
