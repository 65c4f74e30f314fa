"""The folder-backed S3 stand-in of the object-store bench (tests/support/s3files.py) answers st-audit as moto's
S3 server does: the same reads (ranges, If-Match, statuses, bytes) and the same report, so what the bench measures
on it is what a real S3 API costs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support import build
from tests.support.cli import run_cli
from tests.support.s3 import S3Stub
from tests.support.s3files import S3Files


def _reads(requests: list) -> list[tuple[str, str, str | None, bool, int, int]]:
    return sorted(
        (r.method, r.path, r.range, bool(r.if_match), r.status, r.body_bytes) for r in requests if r.path != "/models"
    )


def test_the_folder_stand_in_reads_as_moto(tmp_path: Path) -> None:
    folder = build.build_layout(tmp_path / "bucket" / "org" / "m", "tiny-qwen3_moe", shards=3)
    (tmp_path / "bucket" / "org" / "m" / "sub").mkdir()
    shutil.copy(folder / "config.json", folder / "sub" / "config.json")
    with S3Files(tmp_path / "bucket", bucket="models") as files:
        files_proc = run_cli("audit", "s3://models/org/m", "-f", "json", env=files.env())
        files_reads = files.requests
    with S3Stub() as moto:
        moto.bucket("models")
        moto.put_folder("models", "org/m/", folder)
        moto.reset_log()
        moto_proc = run_cli("audit", "s3://models/org/m", "-f", "json", env=moto.env())
        moto_reads = moto.requests
    assert files_proc.returncode == moto_proc.returncode == 0, files_proc.stderr + moto_proc.stderr
    a, b = json.loads(files_proc.stdout), json.loads(moto_proc.stdout)
    assert {k: v for k, v in a.items() if k != "source"} == {k: v for k, v in b.items() if k != "source"}
    assert _reads(files_reads) == _reads(moto_reads) and len(files_reads) == len(moto_reads)
    assert a["source"]["http"] == b["source"]["http"]
