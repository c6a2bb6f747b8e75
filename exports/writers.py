"""Pure writers for released data sets: JSONL records, manifest, datasheet.

Everything here turns plain Python data into bytes with a fixed layout (sorted keys,
``\\n`` line ends, UTF-8, no timestamps of its own), so that writing the same release
twice yields byte-identical files. Writing to disk is atomic (temporary file + rename),
so a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from qcstation.common.leases import pid_alive
from qcstation.common.safe import markdown as _md
from qcstation.common.vocab import KEYINFO_FIELDS, KEYINFO_TITLES

__all__ = [
    "RECORD_FIELDS",
    "render_key_information",
    "dumps_canonical",
    "jsonl_bytes",
    "manifest_bytes",
    "datasheet_markdown",
    "manifest_splits",
    "defect_bound_text",
    "sha256_bytes",
    "sha256_file",
    "write_atomic",
    "write_release_dir",
    "ExportPathError",
]


# Field order used in the datasheet (records themselves are written with sorted keys).
RECORD_FIELDS: tuple[tuple[str, str], ...] = (
    ("id", "stable record id: `<source>-<orig_id>`"),
    ("seed_id", "row id of the seed in the qcstation database that built the release"),
    ("source", "seed data set the question comes from"),
    ("orig_id", "id (or line) of the question in its source data set"),
    ("difficulty", "easy | medium | hard"),
    ("question", "the seed question (Understanding and Reasoning tasks)"),
    ("background", "structured key information rendered as text with six headed fields "
                   "(ground truth of the Understanding task)"),
    ("key_information", "the same key information as a structured object"),
    ("smt-lib", "SMT-LIB formalisation of the question, verified with Z3 against the gold answer"),
    ("answer", "exact value computed by Z3 from `smt-lib` (`p` or `p/q`)"),
    ("notation", "notation-based arithmetic question (input of the Arithmetic task)"),
    ("notation_smtlib", "SMT-LIB of the notation question itself (rebuilt from its text; what Z3 "
                        "checked for the Arithmetic task)"),
    ("gt_answer", "gold answer text of the seed question"),
    ("gt_cot", "gold chain of thought"),
    ("w_cot", "chain of thought with injected errors (Reflection & Refinement task)"),
    ("wrong", "types of the injected errors, in order (ids)"),
    ("wrong_names", "the same types by the paper's names (Arithmetic Inaccuracy, Omitted Step, "
                    "Hallucinated Content, Logical Disorder, Redundancy, Operator Misuse)"),
    ("wrong_answer", "the final answer the erroneous chain of thought states (differs from the "
                     "gold unless every error type keeps it, as its record says)"),
    ("errors", "the injected errors in detail (type, step, original, modified, description)"),
    ("provenance", "per dimension: artifact id, version, QC status, generator, model, prompt version"),
    ("flags", "per dimension with any: the self-check flags of the released artifact (code, "
              "message) and the curator's override that let it into the release (by, at, reason)"),
)


def render_key_information(info: Mapping[str, Any]) -> str:
    """The six fields as headed text; lists become ``- item`` lines, empty ones ``(none)``."""
    out: list[str] = []
    for key in KEYINFO_FIELDS:
        value = info.get(key)
        out.append(f"{KEYINFO_TITLES[key]}:")
        if isinstance(value, (list, tuple)):
            if value:
                out.extend(f"- {str(v).strip()}" for v in value)
            else:
                out.append("- (none)")
        else:
            text = "" if value is None else str(value).strip()
            out.append(text or "(none)")
    return "\n".join(out)


def dumps_canonical(obj: Any, *, indent: int | None = None) -> str:
    """JSON with sorted keys and fixed separators; non-ASCII kept as UTF-8."""
    if indent is None:
        return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(", ", ": "),
                          allow_nan=False)
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=indent, allow_nan=False)


def jsonl_bytes(records: Iterable[Mapping[str, Any]]) -> bytes:
    """One canonical JSON object per line, in the order given, each line ending in ``\\n``."""
    return "".join(dumps_canonical(dict(r)) + "\n" for r in records).encode("utf-8")


def manifest_bytes(manifest: Mapping[str, Any]) -> bytes:
    return (dumps_canonical(dict(manifest), indent=2) + "\n").encode("utf-8")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory + rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes 0600 files; a release is for sharing: the usual mode under the umask
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _outcome_sentence(outcomes: dict[str, Any] | None) -> str:
    """What became of the seeds with a rejected item, from the counts only (each seed once,
    by its fate; never a stock sentence)."""
    if not outcomes:
        return "rejected items: not recorded in this manifest"
    n = int(outcomes.get("rejected_seeds") or 0)
    if n == 0:
        text = "no item was rejected"
    else:
        parts = []
        for key, words in (("regenerated", "regenerated, reviewed again and accepted"),
                           ("fixed_in_place", "fixed in place by a reviewer and accepted"),
                           ("excluded_in_qc", "excluded by a curator (seed left out)"),
                           ("open", "not replaced yet (left out)")):
            if outcomes.get(key):
                parts.append(f"{outcomes[key]} {words}")
        text = (f"{n} seed{'s' if n != 1 else ''} had a rejected item: "
                + ("; ".join(parts) if parts else "none was replaced"))
    extra = [f"{outcomes[k]} {w}" for k, w in (("settled", "disagreement(s) settled by a curator"),
                                                ("overridden", "outcome(s) overridden by a curator"))
             if outcomes.get(k)]
    return text + ("; " + "; ".join(extra) if extra else "")


#: how an artifact was made, by its generator (provenance), for the datasheet
_MADE_BY = {
    "rule:notation": "rendered by rules from the verified SMT-LIB",
    "human": "fixed in place by a reviewer",
    "llm": "written by a model",
}


def _made_by(generator: str, model: Any, prompt: Any) -> str:
    if generator in _MADE_BY and generator != "llm":
        return _MADE_BY[generator]
    if generator == "llm" or model:
        return (f"written by a model ({_md_cell(model or 'unnamed')}"
                + (f", prompt {_md_cell(prompt)}" if prompt else "") + ")")
    if generator.startswith("rule:"):
        return f"made by rules ({_md_cell(generator[5:])})"
    return f"made by {_md_cell(generator or 'an unrecorded generator')}"


def _made_lines(manifest: Mapping[str, Any]) -> list[str]:
    """How the released items of each dimension were made, from their provenance."""
    by_dim: dict[str, list[str]] = {}
    for row in manifest.get("generators") or []:
        how = _made_by(str(row.get("generator") or ""), row.get("model"),
                       row.get("prompt_version"))
        by_dim.setdefault(str(row.get("dimension")), []).append(f"{row.get('records', 0)} {how}")
    if not by_dim:
        return []
    return ["How the released items were made (from each record's provenance):", "",
            *(f"- {_md_cell(dim)}: " + "; ".join(parts) for dim, parts in sorted(by_dim.items())),
            ""]


class ExportPathError(OSError):
    """The export folder cannot be used as it is (a symbolic link, not a folder)."""


_STAGING = ".partial-"
_RETIRED = ".old-"


def _on_the_way(path: Path) -> list[Path]:
    """Every folder ``path`` passes through as typed: ``a/b/c`` is ``a``, ``a/b``, ``a/b/c``
    (below the working folder); an absolute path, each of its folders from the root."""
    out: list[Path] = []
    cur = Path(path.anchor) if path.is_absolute() else Path()
    for part in path.parts[1:] if path.is_absolute() else path.parts:
        if part in ("", "."):
            continue
        cur = cur / part
        out.append(cur)
    return out


def _refuse_links(*paths: Path) -> None:
    """Refuse a symbolic link anywhere on the way: every folder of the first path as typed
    (``--out linkparent/deeper`` is refused as ``--out link`` is), and each path given."""
    for p in [*_on_the_way(paths[0]), *paths[1:]] if paths else []:
        if p.is_symlink():
            raise ExportPathError(
                f"{p} is a symbolic link (to {os.readlink(p)}); exports are not written through "
                "links: remove it or pass the real folder with --out")
        if p.exists() and not p.is_dir():
            raise ExportPathError(f"{p} exists and is not a folder")


def clean_leftovers(parent: Path, version: str) -> list[Path]:
    """Remove what killed exports of ``version`` left in ``parent`` (``<name>/``): hidden
    staging and retired folders of processes that no longer run, and hidden temporary
    files of the older one-file-at-a-time writer inside the version folder."""
    import shutil

    removed: list[Path] = []
    if not parent.is_dir() or parent.is_symlink():
        return removed
    for entry in parent.iterdir():
        for marker in (_STAGING, _RETIRED):
            prefix = f".{version}{marker}"
            if entry.name.startswith(prefix) and not entry.is_symlink():
                pid = entry.name[len(prefix):]
                if not pid.isdigit() or not pid_alive(int(pid)):
                    shutil.rmtree(entry, ignore_errors=True)
                    removed.append(entry)
    target = parent / version
    if target.is_dir() and not target.is_symlink():
        for entry in target.iterdir():
            if entry.name.startswith(".") and entry.name.endswith(".tmp") and entry.is_file():
                entry.unlink(missing_ok=True)
                removed.append(entry)
    return removed


def write_release_dir(root: Path, name: str, version: str, files: Mapping[str, bytes]) -> Path:
    """All-or-nothing export of ``files`` to ``root/name/version/``.

    The files are written to a hidden staging folder next to it, read back and checked
    against their sha256, then the folder is renamed into place (a previous export of the
    same version is replaced the same way). A reader, or a process killed at any moment,
    sees either the complete checked set or no folder at all; what a killed export left
    is removed by the next one. Symbolic links on the way are refused, not followed."""
    import shutil

    root = Path(root)
    parent = root / name
    target = parent / version
    _refuse_links(root, parent, target)
    parent.mkdir(parents=True, exist_ok=True)
    _refuse_links(root, parent)
    clean_leftovers(parent, version)
    staging = parent / f".{version}{_STAGING}{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    umask = os.umask(0)
    os.umask(umask)
    try:
        for fname, data in files.items():
            fd = os.open(staging / fname, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o666 & ~umask)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for fname, data in files.items():  # read back: the set on disk is the set we made
            if sha256_file(staging / fname) != sha256_bytes(data):
                raise OSError(f"{fname} reads back differently from what was written")
        os.chmod(staging, 0o777 & ~umask)
        retired = None
        if target.exists():
            retired = parent / f".{version}{_RETIRED}{os.getpid()}"
            shutil.rmtree(retired, ignore_errors=True)
            os.rename(target, retired)
        os.rename(staging, target)
        _fsync_dir(parent)
        if retired is not None:
            shutil.rmtree(retired, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _pct(x: Any) -> str:
    if x is None:
        return "n/a"
    return f"{float(x) * 100:.2f}%"


def defect_bound_text(bound: Any, threshold: Any) -> str:
    """The defect bound with two decimals, or more when two would make a pass read as the
    threshold (4.995% against 5%)."""
    if bound is None:
        return "n/a"
    if threshold is None:
        return _pct(bound)
    b, t = float(bound), float(threshold)
    for places in range(2, 6):
        scale = 10 ** (places + 2)
        shown = int(b * scale + 0.5) / scale
        if (shown < t) == (b < t):
            break
    return f"{shown * 100:.{places}f}%"


def _md_cell(x: Any) -> str:
    """A value from users or data (names, notes, sources) as inert one-line Markdown."""
    return _md(x, 500)


#: SPDX identifiers a dataset hub knows, by how a source's licence text starts
_HUB_LICENCES = (("MIT", "mit"), ("Apache-2.0", "apache-2.0"), ("CC-BY-4.0", "cc-by-4.0"),
                 ("CC-BY-SA-4.0", "cc-by-sa-4.0"))
#: a dataset hub's size buckets (upper bound, name)
_SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                    (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"))


def _hub_licence(licences: Mapping[str, Any]) -> str:
    """One licence id for the card: the sources' one SPDX id when they share it, else
    ``other`` (the Composition table names each source's)."""
    ids = set()
    for text in licences.values():
        found = next((hub for prefix, hub in _HUB_LICENCES if str(text).startswith(prefix)), None)
        ids.add(found or "other")
    return ids.pop() if len(ids) == 1 else "other"


def _size_category(n: int) -> str:
    return next((name for bound, name in _SIZE_CATEGORIES if n < bound), "n>10M")


def _yaml_str(text: Any) -> str:
    """A YAML scalar that reads back as exactly ``text`` (a JSON string is valid YAML)."""
    return json.dumps(str(text), ensure_ascii=True)


#: the type of each record field as the card declares it to ``datasets`` (``dataset_info:
#: features``): ``json`` for the objects whose keys vary from record to record (a derived
#: item's ``params``, ``flags`` and ``provenance`` per dimension present, the errors of each
#: type), so every split and every chunk of a large file reads with one schema and each row
#: reads back as the record it is; ``list: T`` a list of T.
RECORD_FEATURES: tuple[tuple[str, str], ...] = (
    ("answer", "string"), ("background", "string"), ("difficulty", "string"),
    ("errors", "list: json"), ("flags", "json"), ("gt_answer", "string"), ("gt_cot", "string"),
    ("id", "string"), ("key_information", "json"), ("notation", "string"),
    ("notation_smtlib", "string"), ("orig_id", "string"), ("provenance", "json"),
    ("question", "string"), ("seed_id", "int64"), ("smt-lib", "string"), ("source", "string"),
    ("w_cot", "string"), ("wrong", "list: string"), ("wrong_answer", "string"),
    ("wrong_names", "list: string"))
#: the fields a derived release's records add (``qcstation.core.release.derived``)
DERIVED_FEATURES: tuple[tuple[str, str], ...] = (
    ("dimensions", "list: string"), ("family", "string"), ("level", "int64"),
    ("params", "json"), ("parent", "string"), ("parent_seed_id", "int64"), ("set", "string"),
    ("transform", "string"))


def manifest_splits(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The splits a frozen manifest names (``qcstation.core.release.splits``): name, file
    (``path``), records, and the derived family for a release split by family. A manifest
    frozen before the curator chose has none: one split, ``test``, reading ``data.jsonl``."""
    splits = manifest.get("splits")
    if splits:
        return [dict(s) for s in splits]
    records = int((manifest.get("counts") or {}).get("records") or 0)
    return [{"name": "test", "path": "data.jsonl", "records": records}]


def card_metadata(manifest: Mapping[str, Any]) -> str:
    """The metadata block a dataset hub reads at the top of README.md (YAML between ``---``
    lines): licence, language, task, size, the record's features (:data:`RECORD_FEATURES`)
    and the config, so that
    ``datasets.load_dataset(folder)`` reads the records' files (one config, named after the
    derived set for a derived release, else ``default``; its splits as the curator chose,
    :func:`manifest_splits`) and never ``manifest.json`` as data."""
    counts = manifest.get("counts") or {}
    derived = manifest.get("derived") or {}
    config = str(derived.get("set") or "default")
    licence = _hub_licence(manifest.get("licences") or {})
    pretty = f"{manifest.get('name', '')}@{manifest.get('version', '')}"
    lines = ["---", f"pretty_name: {_yaml_str(pretty)}", f"license: {licence}"]
    if licence == "other":  # the sources differ: the Composition table names each one's
        lines += ["license_name: per-source", "license_link: README.md"]
    lines += ["language:", "- en", "task_categories:", "- question-answering",
              "- text-generation", "tags:", "- math", "- reasoning", "- smt-lib",
              "- benchmark", "- qcstation"]
    if derived:
        lines += [f"- {_yaml_str('derived-' + str(derived.get('kind') or 'set'))}"]
    lines += ["size_categories:", f"- {_size_category(int(counts.get('records') or 0))}",
              "configs:", f"- config_name: {_yaml_str(config)}", "  data_files:"]
    for split in manifest_splits(manifest):
        lines += [f"  - split: {_yaml_str(split['name'])}",
                  f"    path: {_yaml_str(split['path'])}"]
    lines += ["dataset_info:", f"- config_name: {_yaml_str(config)}", "  features:"]
    for name, kind in sorted(RECORD_FEATURES + (DERIVED_FEATURES if derived else ())):
        key, _, inner = kind.partition(": ")
        lines += [f"  - name: {_yaml_str(name)}",
                  f"    list: {inner}" if inner else f"    dtype: {key}"]
    return "\n".join(lines + ["---", ""])


def datasheet_markdown(manifest: Mapping[str, Any]) -> str:
    """A datasheet (README.md) built only from the manifest, so it is reproducible too. It
    opens with the metadata block a dataset hub reads (:func:`card_metadata`)."""
    lines = ([card_metadata(manifest)] + _release_lines(manifest) + _composition_lines(manifest)
             + _left_out_lines(manifest) + _quality_lines(manifest) + _flag_lines(manifest)
             + _generator_lines(manifest) + _field_lines(manifest))
    return "\n".join(lines)


def _release_lines(manifest: Mapping[str, Any]) -> list[str]:
    counts = manifest.get("counts", {})
    lines: list[str] = [
        f"# {_md_cell(manifest.get('name', ''))}@{_md_cell(manifest.get('version', ''))}",
        "",
        "A SMART-style multi-dimensional math-reasoning benchmark built with qcstation: each",
        "record is one seed question with its four dimension tasks (Understanding, Reasoning,",
        "Arithmetic, Reflection & Refinement) and their ground truths.",
        "",
        "## Release",
        "",
        f"- approved by: {_md_cell(manifest.get('approved_by', ''))}",
        f"- approved at: {_md_cell(manifest.get('approved_at', ''))}",
        f"- records: {counts.get('records', 0)}",
        f"- schema version: {manifest.get('schema_version', '')}",
        f"- record format version: {manifest.get('format_version', '')}",
        "- splits (`datasets.load_dataset(folder)`): " + ", ".join(
            f"{_md_cell(s['name'])} ({_md_cell(s['path'])}, {s.get('records', '?')} records)"
            for s in manifest_splits(manifest)),
    ]
    notes = manifest.get("notes")
    if notes:
        lines += [f"- notes: {_md_cell(notes)}"]
    return lines


def _composition_lines(manifest: Mapping[str, Any]) -> list[str]:
    counts = manifest.get("counts", {})
    licences = manifest.get("licences") or {}
    lines = ["", "## Composition", "", "| source | records | licence of the seed data |",
             "|---|---|---|"]
    for source, n in sorted((counts.get("by_source") or {}).items()):
        lines.append(f"| {_md_cell(source)} | {n} | "
                     f"{_md_cell(licences.get(source, 'not recorded'))} |")
    lines += ["", "| difficulty | records |", "|---|---|"]
    for level, n in sorted((counts.get("by_difficulty") or {}).items()):
        lines.append(f"| {_md_cell(level)} | {n} |")
    return lines


def _left_out_lines(manifest: Mapping[str, Any]) -> list[str]:
    counts = manifest.get("counts", {})
    excluded = manifest.get("excluded") or {}
    lines = [
        "",
        "## Seeds left out",
        "",
        "A seed is released only when all four of its dimensions have a current artifact that",
        "passed the automatic checks (`verified`) or human review (`accepted`). Seeds with a",
        "missing, unverified, failed or rejected dimension are left out of this release and",
        "counted here; filtered and duplicate seeds are never candidates.",
        "",
        f"- active seeds left out: {excluded.get('count', 0)}",
    ]
    for reason, n in sorted((excluded.get("by_reason") or {}).items()):
        lines.append(f"  - {_md_cell(reason)}: {n}")
    for status, n in sorted((counts.get("inactive_seeds") or {}).items()):
        lines.append(f"- seeds not active ({_md_cell(status)}): {n}")
    return lines


def _quality_lines(manifest: Mapping[str, Any]) -> list[str]:
    lines = [
        "",
        "## Quality control",
        "",
        *_made_lines(manifest),
        "Z3 checks the value a notation question (Arithmetic) computes, not its wording, and",
        "the schema checks the fields of key information (Understanding), not their truth; so",
        "for these dimensions a seeded random sample, stratified by source, was reviewed by",
        "human annotators. What became of the seeds with a rejected item is counted per",
        "dimension below, each seed once. The release gate for each dimension:",
        "",
    ]
    threshold = (manifest.get("qc_policy") or {}).get("threshold")
    if isinstance(threshold, (int, float)) and threshold >= 0.1:
        lines += [f"**The defect threshold of this release, {threshold:.0%}, is a "
                  f"demonstration setting** (as `qcstation quickstart` writes it); SMART-style "
                  f"quality control uses 5%, which needs 59 clean reviews per dimension.", ""]
    qc = manifest.get("qc") or {}
    for dim in sorted(qc):
        g = qc[dim] or {}
        gate = g.get("gate") or {}
        agree = g.get("agreement") or {}
        kappa = agree.get("kappa")
        lines += [
            f"### {_md_cell(dim)}",
            "",
            f"- {_outcome_sentence(g.get('outcomes'))}",
            f"- rule: {_md_cell(gate.get('rule', ''))}",
            f"- reviewed (random draws): {gate.get('reviewed', 0)}, "
            f"defects: {gate.get('defects', 0)}"
            + (f" (in round {g['gate_counts_from_round']}, a fresh random round drawn after "
               f"the defects found before were corrected; earlier rounds are listed in the "
               f"manifest)" if g.get("gate_counts_from_round") else ""),
            f"- upper confidence bound on the defect rate: "
            f"{defect_bound_text(gate.get('upper_bound'), gate.get('threshold'))} "
            f"(threshold {_pct(gate.get('threshold'))})",
            f"- samples: {len(g.get('samples') or [])}, "
            f"decisions recorded: {g.get('decisions', 0)}",
            f"- annotators: {', '.join(_md_cell(a) for a in g.get('annotators') or []) or 'n/a'}",
            f"- agreement on overlap items: {agree.get('pairs', 0)} pairs, observed "
            f"{_pct(agree.get('observed'))}, Cohen's kappa "
            f"{'n/a' if kappa is None else format(kappa, '.3f')}, Gwet's AC1 "
            f"{'n/a' if agree.get('ac1') is None else format(agree['ac1'], '.3f')}"
            + (f" ({_md_cell(agree['note'])})" if agree.get("note") else ""),
            "",
        ]
    return lines


def _flag_lines(manifest: Mapping[str, Any]) -> list[str]:
    """The self-check flags the released records carry, and who let each through and why."""
    flags = manifest.get("flags")
    if not isinstance(flags, Mapping):
        return []
    lines = ["## Self-check flags", "",
             "Every artifact is checked when it is made for what Z3 cannot see (a formula that",
             "states the answer, a number the question does not state, a given missing). A flag",
             "blocks a release until a curator overrides it with a reason; each record's `flags`",
             "field carries its flags and the override.", "",
             f"- records with a flag: {flags.get('records_flagged', 0)}"]
    for dim, codes in sorted((flags.get("by_dimension") or {}).items()):
        lines.append(f"  - {_md_cell(dim)}: " + ", ".join(f"{_md_cell(c)} {n}"
                                                         for c, n in sorted(codes.items())))
    over = flags.get("overridden") or []
    if over:
        lines += ["", "| record | dimension | flags | overridden by | at | reason |",
                  "|---|---|---|---|---|---|"]
        for o in over:
            lines.append("| " + " | ".join(_md_cell(x) for x in (
                o.get("id"), o.get("dimension"), ", ".join(o.get("codes") or []), o.get("by"),
                o.get("at"), o.get("reason"))) + " |")
    return lines + [""]


def _generator_lines(manifest: Mapping[str, Any]) -> list[str]:
    lines = ["## Generators", "", "| dimension | generator | model | prompt version | records |",
             "|---|---|---|---|---|"]
    for row in manifest.get("generators") or []:
        lines.append("| " + " | ".join(_md_cell(row.get(k) if row.get(k) is not None else "")
                                          for k in ("dimension", "generator", "model",
                                                    "prompt_version", "records")) + " |")
    return lines


def _field_lines(manifest: Mapping[str, Any]) -> list[str]:
    splits = manifest_splits(manifest)
    files = ", ".join(f"`{_md_cell(s['path'])}`" for s in splits)
    lines = ["", "## Record fields", "",
             f"{files} {'hold' if len(splits) > 1 else 'holds'} one JSON object per line "
             "(keys sorted):", ""]
    for field, doc in RECORD_FIELDS:
        lines.append(f"- `{field}`: {doc}")
    return lines + [
        "",
        "## Files",
        "",
        "`manifest.json` lists every other file of this directory with its sha256. The export",
        "is reproducible: exporting the same release again gives byte-identical files.",
        "",
    ]
