"""Release policy: parsing every key, every malformed case, discovery, precedence and each rule's findings."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from auditor.core.errors import UsageError
from auditor.gate import policy as pol
from auditor.gate.policy import Policy, Tolerance
from auditor.run.multi import gated_audit
from tests.support import build
from tests.support.cli import run_cli, run_json

QWEN3_8B_PARAMS = sum(build.nbytes(d, s) // 2 for _, d, s in build.load_layout("Qwen__Qwen3-8B")["tensors"])


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- parsing -------------------------------------------------------------------------------------------------


def test_every_key_parses(tmp_path: Path) -> None:
    f = write(
        tmp_path / "st-audit.toml",
        """
expect_parameters = "8.19B"
tolerance = "0.1%"
allowed_dtypes = ["BF16", "F32"]
fail_on = "warning"
ignore = ["buffer-stored", "range-gap"]
forbid_unexplained = true
tied_head = "required"
max_shard_bytes = "5GB"
lock = "locks/model.lock.json"
""",
    )
    p = pol.load(f)
    assert p.expect_parameters == 8_190_000_000
    assert p.tolerance == Tolerance(relative=0.001)
    assert p.allowed_dtypes == ("BF16", "F32")
    assert p.fail_on == "warning"
    assert p.ignore == ("buffer-stored", "range-gap")
    assert p.forbid_unexplained is True
    assert p.tied_head == "required"
    assert p.max_shard_bytes == 5 * 10**9
    assert p.lock == str(tmp_path / "locks" / "model.lock.json")  # relative to the policy file
    assert p.origin == str(f)


@pytest.mark.parametrize(
    ("value", "count", "rounding"),
    [
        (8190735360, 8190735360, 0),
        ('"8190735360"', 8190735360, 0),
        ('"8,190,735,360"', 8190735360, 0),
        ('"8.19B"', 8_190_000_000, 5_000_000),
        ('"596M"', 596_000_000, 500_000),
        ('"1.5k"', 1500, 50),
        ('"0.6B"', 600_000_000, 50_000_000),
    ],
)
def test_expect_parameters_forms(tmp_path: Path, value: object, count: int, rounding: int) -> None:
    p = pol.load(write(tmp_path / "p.toml", f"expect_parameters = {value}\n"))
    assert p.expect_parameters == count
    assert p.tolerance == (Tolerance(absolute=rounding) if rounding else None)


def test_explicit_tolerance_beats_rounding(tmp_path: Path) -> None:
    p = pol.load(write(tmp_path / "p.toml", 'expect_parameters = "8.19B"\ntolerance = 1000\n'))
    assert p.tolerance == Tolerance(absolute=1000)
    p = pol.load(write(tmp_path / "q.toml", 'expect_parameters = "8.19B"\ntolerance = "2M"\n'))
    assert p.tolerance == Tolerance(absolute=2_000_000)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("max_shard_bytes = 5000000000", 5_000_000_000),
        ('max_shard_bytes = "5GB"', 5_000_000_000),
        ('max_shard_bytes = "4.5GiB"', int(4.5 * 2**30)),
        ('max_shard_bytes = "500MB"', 500_000_000),
        ('max_shard_bytes = "100"', 100),
    ],
)
def test_byte_sizes(tmp_path: Path, text: str, expected: int) -> None:
    assert pol.load(write(tmp_path / "p.toml", text + "\n")).max_shard_bytes == expected


MALFORMED = [
    ("colour = 'red'", "colour"),
    ("expect_parameters = true", "expect_parameters"),
    ("expect_parameters = 8.19", "expect_parameters"),
    ("expect_parameters = '8.19X'", "expect_parameters"),
    ("expect_parameters = 'lots'", "expect_parameters"),
    ("expect_parameters = -5", "expect_parameters"),
    ("expect_parameters = '1.5'", "expect_parameters"),
    ("expect_parameters = ['8B']", "expect_parameters"),
    ("tolerance = 'x%'", "tolerance"),
    ("tolerance = '-1%'", "tolerance"),
    ("tolerance = 0.5", "tolerance"),
    ("tolerance = 'some'", "tolerance"),
    ("allowed_dtypes = ['BF17']", "allowed_dtypes"),
    ("allowed_dtypes = [1]", "allowed_dtypes"),
    ("allowed_dtypes = []", "allowed_dtypes"),
    ("allowed_dtypes = 16", "allowed_dtypes"),
    ("fail_on = 'fatal'", "fail_on"),
    ("fail_on = 2", "fail_on"),
    ("ignore = ['no-such-code']", "ignore"),
    ("ignore = 5", "ignore"),
    ("forbid_unexplained = 'yes'", "forbid_unexplained"),
    ("forbid_unexplained = 1", "forbid_unexplained"),
    ("tied_head = 'maybe'", "tied_head"),
    ("tied_head = true", "tied_head"),
    ("max_shard_bytes = '5XB'", "max_shard_bytes"),
    ("max_shard_bytes = 0", "max_shard_bytes"),
    ("max_shard_bytes = '-1GB'", "max_shard_bytes"),
    ("max_shard_bytes = 5.5", "max_shard_bytes"),
    ("lock = 5", "lock"),
    ("lock = ''", "lock"),
]


@pytest.mark.parametrize(("text", "key"), MALFORMED)
def test_malformed_policy_names_key_and_file(tmp_path: Path, text: str, key: str) -> None:
    f = write(tmp_path / "st-audit.toml", text + "\n")
    with pytest.raises(UsageError) as e:
        pol.load(f)
    assert key in str(e.value) and str(f) in str(e.value)
    assert e.value.exit_code == 2


def test_invalid_toml_is_usage_error(tmp_path: Path) -> None:
    f = write(tmp_path / "st-audit.toml", "fail_on = \n")
    with pytest.raises(UsageError, match="not valid TOML"):
        pol.load(f)


def test_missing_policy_file_is_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        pol.load(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("text", "key"),
    [MALFORMED[0], ("max_shard_bytes = 'huge'", "max_shard_bytes"), ("tied_head = 'maybe'", "tied_head")],
)
def test_malformed_policy_exits_2_via_cli(
    make_checkpoint: Callable[..., Path], tmp_path: Path, text: str, key: str
) -> None:
    ckpt = make_checkpoint([("w", "F32", [2, 2])])
    f = write(tmp_path / "bad.toml", text + "\n")
    proc = run_cli("audit", str(ckpt), "--policy", str(f))
    assert proc.returncode == 2, proc.stderr
    assert key in proc.stderr and str(f) in proc.stderr
    assert proc.stdout == ""


def test_malformed_pyproject_table_names_it(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.st-audit]\nfail_on = "sometimes"\n')
    with pytest.raises(UsageError) as e:
        pol.load(cwd=tmp_path)
    assert "[tool.st-audit]" in str(e.value) and "fail_on" in str(e.value)


# -- discovery and precedence -----------------------------------------------------------------------------


def test_discovery_order(tmp_path: Path) -> None:
    assert pol.load(cwd=tmp_path).is_empty
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    assert pol.load(cwd=tmp_path).is_empty  # a pyproject without the table is no policy
    write(tmp_path / "pyproject.toml", '[tool.st-audit]\nfail_on = "info"\n')
    assert pol.load(cwd=tmp_path).fail_on == "info"
    write(tmp_path / "st-audit.toml", 'fail_on = "warning"\n')
    assert pol.load(cwd=tmp_path).fail_on == "warning"  # st-audit.toml before pyproject
    other = write(tmp_path / "other.toml", 'fail_on = "never"\n')
    assert pol.load(other, cwd=tmp_path).fail_on == "never"  # an explicit file before both
    assert pol.load(cwd=tmp_path, discover=False).is_empty


def test_flags_override_file() -> None:
    base = Policy(
        fail_on="never", ignore=("range-gap",), expect_parameters=10, tolerance=Tolerance(relative=0.5), origin="x.toml"
    )
    p = base.merged({"fail_on": "warning", "ignore": None, "expect_parameters": "20"})
    assert (p.fail_on, p.ignore, p.expect_parameters, p.tolerance) == (
        "warning",
        ("range-gap",),
        20,
        Tolerance(relative=0.5),
    )
    with pytest.raises(UsageError, match="--max-shard-bytes"):
        base.merged({"max_shard_bytes": "big"})


def test_flag_count_replaces_file_rounding(tmp_path: Path) -> None:
    p = pol.load(write(tmp_path / "p.toml", 'expect_parameters = "8.19B"\n'))
    assert p.tolerance == Tolerance(absolute=5_000_000)
    exact = p.merged({"expect_parameters": "8190735360"})
    assert (exact.expect_parameters, exact.tolerance) == (8190735360, None)  # exact now: no leftover slack
    assert exact.origin_of("expect_parameters") == "the command line" and exact.origin_of("fail_on") == str(
        tmp_path / "p.toml"
    )
    kept = pol.load(write(tmp_path / "q.toml", 'expect_parameters = "8.19B"\ntolerance = "1%"\n')).merged(
        {"expect_parameters": "8.2B"}
    )
    assert kept.tolerance == Tolerance(relative=0.01)  # an explicit tolerance stays


def test_settings_precedence() -> None:
    assert pol.settings(Policy(), env={}) == ("error", ())
    assert pol.settings(Policy(), env={"ST_AUDIT_FAIL_ON": "warning"}) == ("warning", ())
    assert pol.settings(Policy(fail_on="info", ignore=("range-gap",)), env={"ST_AUDIT_FAIL_ON": "warning"}) == (
        "info",
        ("range-gap",),
    )
    with pytest.raises(UsageError, match="ST_AUDIT_FAIL_ON"):
        pol.settings(Policy(), env={"ST_AUDIT_FAIL_ON": "loud"})


def test_cli_discovers_policy_and_flags_override(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B")
    work = tmp_path / "work"
    work.mkdir()
    write(work / "st-audit.toml", 'expect_parameters = "1B"\nfail_on = "never"\n')
    code, doc = run_json("audit", str(ckpt), cwd=work)
    assert code == 0 and doc["fail_on"] == "never"
    assert [f["code"] for f in doc["findings"]].count("policy-violation") == 1
    code, doc = run_json("audit", str(ckpt), "--fail-on", "error", cwd=work)
    assert code == 1 and doc["verdict"] == "fail"
    code, doc = run_json(
        "audit", str(ckpt), "--fail-on", "error", "--expect-parameters", str(QWEN3_8B_PARAMS), cwd=work
    )
    assert code == 0 and "policy-violation" not in [f["code"] for f in doc["findings"]]
    code, doc = run_json("audit", str(ckpt), "--fail-on", "error", "--no-policy", cwd=work)
    assert code == 0 and "policy-violation" not in [f["code"] for f in doc["findings"]]


def test_env_policy_and_fail_on(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-4B")
    f = write(tmp_path / "rules.toml", 'tied_head = "forbidden"\n')
    code, doc = run_json("audit", str(ckpt), env={"ST_AUDIT_POLICY": str(f)}, cwd=tmp_path)
    assert code == 1 and any(x["code"] == "policy-violation" for x in doc["findings"])
    # the file's fail_on beats the environment default; the environment beats the built-in default
    write(f, 'tied_head = "forbidden"\nfail_on = "never"\n')
    code, _ = run_json("audit", str(ckpt), env={"ST_AUDIT_POLICY": str(f), "ST_AUDIT_FAIL_ON": "error"})
    assert code == 0
    code, doc = run_json("audit", str(ckpt), "--no-policy", env={"ST_AUDIT_FAIL_ON": "never"})
    assert doc["fail_on"] == "never"


# -- rules --------------------------------------------------------------------------------------------------


def violations(ckpt: Path, **rules: object) -> list[dict[str, Any]]:
    report = gated_audit(str(ckpt), pol.Policy().merged(rules, origin="test"), env={})
    return [f.to_dict() for f in report.active_findings if f.code == "policy-violation"]


def test_expect_parameters_and_tolerance(layout_checkpoint: Callable[..., Path]) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B")
    assert violations(ckpt, expect_parameters=QWEN3_8B_PARAMS) == []
    assert violations(ckpt, expect_parameters="8.19B") == []  # within its rounding (8.19B +- 5M)
    assert violations(ckpt, expect_parameters="8.2B") == []  # one decimal: 8.2B +- 50M
    off = violations(ckpt, expect_parameters="8.19B", tolerance=0)
    assert (
        len(off) == 1
        and f"{QWEN3_8B_PARAMS:,}" in str(off[0]["message"])
        and "expect_parameters" in str(off[0]["message"])
    )
    assert violations(ckpt, expect_parameters="8.20B") != []  # 8.20B +- 5M misses 8,190,735,360
    assert violations(ckpt, expect_parameters="8.20B", tolerance="0.2%") == []
    assert violations(ckpt, expect_parameters=QWEN3_8B_PARAMS + 1001, tolerance=1000) != []
    assert violations(ckpt, expect_parameters=QWEN3_8B_PARAMS + 1000, tolerance=1000) == []


def test_allowed_dtypes_names_tensors(make_checkpoint: Callable[..., Path]) -> None:
    ckpt = make_checkpoint([("a.weight", "BF16", [4, 4]), ("b.weight", "F32", [4]), ("c.weight", "F32", [2])])
    assert violations(ckpt, allowed_dtypes=["BF16", "F32"]) == []
    (v,) = violations(ckpt, allowed_dtypes=["BF16"])
    assert v["tensors"] == ["b.weight", "c.weight"] and "F32" in str(v["message"])


def test_forbid_unexplained(layout_checkpoint: Callable[..., Path]) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-4B", extra=[("model.layers.0.mlp.secret_proj.weight", "BF16", [8, 8])])
    assert violations(ckpt) == []
    (v,) = violations(ckpt, forbid_unexplained=True)
    assert v["tensors"] == ["model.layers.0.mlp.secret_proj.weight"]
    clean = layout_checkpoint("Qwen__Qwen3-4B")
    assert violations(clean, forbid_unexplained=True) == []


def test_tied_head(layout_checkpoint: Callable[..., Path]) -> None:
    untied = layout_checkpoint("Qwen__Qwen3-8B")  # stores lm_head.weight
    tied = layout_checkpoint("Qwen__Qwen3-4B")  # ties the head to the embeddings
    assert violations(untied, tied_head="forbidden") == []
    (v,) = violations(untied, tied_head="required")
    assert v["tensors"] == ["lm_head.weight"]
    assert violations(tied, tied_head="required") == []
    (v,) = violations(tied, tied_head="forbidden")
    assert "tied" in str(v["message"])


def test_tied_head_knows_heads_by_the_formula_not_by_name(tmp_path: Path) -> None:
    """MusicGen has one head per codebook (``lm_heads.0.weight`` ...): the spec's head tensors, not a name list;
    a checkpoint no formula covers falls back to the head names in _common.toml."""
    from tests.support.truth import CASES, write_case

    case = CASES / "musicgen_decoder" / "MusicgenForCausalLM-p1"
    musicgen = write_case(case, tmp_path / "musicgen")
    (v,) = violations(musicgen, tied_head="required")
    assert v["tensors"] and all(str(n).startswith("lm_heads.") for n in v["tensors"])
    unknown = build.build_checkpoint(
        tmp_path / "unknown",
        [("layers.0.w.weight", "F16", [4, 4]), ("language_model.lm_head.weight", "F16", [8, 4])],
        config={"model_type": "no-such-family"},
    )
    (v,) = violations(unknown, tied_head="required")
    assert v["tensors"] == ["language_model.lm_head.weight"]


def test_max_shard_bytes_names_files(layout_checkpoint: Callable[..., Path]) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-8B", shards=4)  # ~4.1 GB per shard
    assert violations(ckpt, max_shard_bytes="5GB") == []
    over = violations(ckpt, max_shard_bytes="3GiB")
    assert sorted(f for v in over for f in v["files"]) == sorted(p.name for p in ckpt.glob("*.safetensors"))


def test_violation_drives_exit_code_and_json(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    ckpt = layout_checkpoint("Qwen__Qwen3-4B")
    f = write(tmp_path / "p.toml", 'allowed_dtypes = ["F16"]\n')
    code, doc = run_json("audit", str(ckpt), "--policy", str(f))
    assert code == 1 and doc["verdict"] == "fail"
    (v,) = [x for x in doc["findings"] if x["code"] == "policy-violation"]
    assert v["severity"] == "error" and v["count"] == doc["totals"]["tensors"] and len(v["tensors"]) == 20
    write(f, 'allowed_dtypes = ["F16"]\nignore = ["policy-violation"]\n')
    code, doc = run_json("audit", str(ckpt), "--policy", str(f))
    assert code == 0 and doc["verdict"] == "pass" and doc["ignored_codes"] == ["policy-violation"]
    assert json.dumps(doc).count("policy-violation") == 1  # only in ignored_codes


def test_the_policy_is_found_walking_up_as_ruff_finds_its_config(tmp_path: Path) -> None:
    """From the target and from the working directory, up to the repository root (a folder holding .git)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "models" / "sub"
    sub.mkdir(parents=True)
    write(repo / "st-audit.toml", 'fail_on = "warning"\n')
    assert pol.load(cwd=sub).fail_on == "warning"
    assert pol.load(cwd=tmp_path, near=[str(sub)]).fail_on == "warning"  # found from the target
    assert pol.find(tmp_path) is None  # nothing above the repository
    write(sub / "pyproject.toml", '[tool.st-audit]\nfail_on = "info"\n')
    assert pol.load(cwd=tmp_path, near=[str(sub)]).fail_on == "info"  # the nearest wins
    outside = tmp_path / "elsewhere"
    (outside / ".git").mkdir(parents=True)
    write(outside / "st-audit.toml", 'fail_on = "never"\n')
    assert pol.load(cwd=outside).fail_on == "never"
    assert pol.load(cwd=outside, near=[str(repo / "models")]).fail_on == "warning"  # the target's repository first


def test_the_cli_applies_the_same_policy_from_any_directory(
    layout_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    """issue 24: with st-audit.toml at the repository root, `cd sub && st-audit audit ../model` used to pass."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    ckpt = layout_checkpoint("Qwen__Qwen3-8B")
    model = repo / "model"
    ckpt.rename(model)
    write(repo / "st-audit.toml", 'expect_parameters = "1B"\n')
    codes = {cwd: run_json("audit", str(model), cwd=cwd)[0] for cwd in (repo, repo / "sub", tmp_path)}
    assert codes == {repo: 1, repo / "sub": 1, tmp_path: 1}


def test_every_format_says_which_policy_applied(layout_checkpoint: Callable[..., Path], tmp_path: Path) -> None:
    import jsonschema

    ckpt = layout_checkpoint("Qwen__Qwen3-8B")
    rules = write(tmp_path / "st-audit.toml", 'expect_parameters = "1B"\nfail_on = "never"\n')
    code, doc = run_json("audit", str(ckpt), cwd=tmp_path)
    jsonschema.validate(doc, json.loads((Path(__file__).parents[1] / "auditor/schema/report.schema.json").read_text()))
    # found in the working directory: named as a person there would (and every CI annotation then says it so)
    assert doc["policy"]["path"] == "st-audit.toml" and [r["key"] for r in doc["policy"]["rules"]] == [
        "expect_parameters",
        "tolerance",
        "fail_on",
    ]
    table = run_cli("audit", str(ckpt), cwd=tmp_path).stdout
    assert "policy: st-audit.toml (3 rules: expect_parameters, tolerance, fail_on)" in table.splitlines()[1]
    from auditor.core.untrusted import markdown

    md = run_cli("audit", str(ckpt), "-f", "markdown", "--policy", str(rules), cwd=tmp_path).stdout  # as given
    assert f"_policy: {markdown(str(rules))} (3 rules" in md  # a path's "_" would end the emphasis: escaped
    assert "policy" not in run_json("audit", str(ckpt), "--no-policy", cwd=tmp_path)[1]
    flags = run_json("audit", str(ckpt), "--no-policy", "--fail-on", "warning", cwd=tmp_path)[1]["policy"]
    assert flags == {"path": None, "rules": [{"key": "fail_on", "from": "the command line"}]}


def test_rounding_of_a_count_binds_only_that_count_from_a_file_and_from_flags(
    layout_checkpoint: Callable[..., Path], tmp_path: Path
) -> None:
    """ "8.19B" allows +- 5M on the stored total, and not on the model's own count, whether it comes from a policy file
    or from the command line (the policy says so in a field, ``tolerance_is_rounding``, not in the origin's words)."""
    ckpt = layout_checkpoint("Qwen__Qwen3-8B")
    from_file = pol.load(write(tmp_path / "p.toml", 'expect_parameters = "8.19B"\n'))
    from_flags = Policy().merged({"expect_parameters": "8.19B"})
    assert from_file.tolerance_is_rounding and from_flags.tolerance_is_rounding
    assert not from_flags.merged({"tolerance": "1%"}).tolerance_is_rounding
    assert not pol.load(
        write(tmp_path / "q.toml", 'expect_parameters = "8.19B"\ntolerance = 5000000\n')
    ).tolerance_is_rounding
    off = violations(ckpt, expect_parameters="8.19B", expect_model_parameters=QWEN3_8B_PARAMS + 1000)
    assert [v["expected"] for v in off] == [QWEN3_8B_PARAMS + 1000]  # the total is within 5M; the model count exact
    assert (
        violations(ckpt, expect_parameters="8.19B", expect_model_parameters=QWEN3_8B_PARAMS + 1000, tolerance=5_000_000)
        == []
    )  # an explicit tolerance binds both
