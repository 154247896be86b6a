"""`check --format conformance`: the official suite's checks.json shape, with the suite's own ids.

The shape is the suite's ConformanceCheck interface (conformance-checks-schema.json says where it is
transcribed from); every check the catalogue maps to suite ids appears under those ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from mcpspy.check.catalogue import CHECKS
from tests.check.helpers import HERE, faulty, run_check

SCHEMA = json.loads((HERE / "conformance-checks-schema.json").read_text())
STATUS = {"pass": "SUCCESS", "fail": "FAILURE", "warn": "WARNING", "skip": "SKIPPED"}


def test_conformance_output_has_the_suites_shape_and_ids(tmp_path: Path) -> None:
    faults = ("control-banner", "accepts-no-meta")
    as_json = run_check(tmp_path, faulty(*faults), "--timeout", "2").report
    done = run_check(tmp_path, faulty(*faults), "--timeout", "2", fmt="conformance")
    assert done.returncode == 1, done.stderr
    checks: list[dict[str, Any]] = json.loads(done.stdout)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert [e.message for e in validator.iter_errors(checks)] == []
    by_key = {
        (c["id"], c["details"]["era"], c["details"].get("target"), c["details"]["mcpspyCheck"]): c
        for c in checks
    }
    for verdict in as_json["checks"]:
        spec = CHECKS[verdict["id"]]
        for suite_id in spec.conformance or (f"mcpspy-{verdict['id']}",):
            item = by_key[(suite_id, verdict["era"], verdict["target"], verdict["id"])]
            assert item["status"] == STATUS[verdict["status"]]
            assert item["details"]["mcpspyCheck"] == verdict["id"]
    assert any(c["status"] == "FAILURE" for c in checks)
    assert any(c["id"] == "sep-2575-server-implements-discover" for c in checks)
