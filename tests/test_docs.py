"""Every reference the code makes to the project's documentation resolves to a file and a section."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: ``docs/helmet.md`` §3.1, §3.9-§3.10, §1.2, §1.3 ...
REFERENCE = re.compile(r"``(docs/[\w-]+\.md)``((?:[ ,]*§[\w.]+(?:-§?[\w.]+)?)*)")
SECTION = re.compile(r"§([\w.]+?)\.?(?=$|[^\w.])")
HEADING = re.compile(r"^#+ (\w+(?:\.\w+)*)\.? ", re.MULTILINE)


def _sources() -> list[Path]:
    return [p for d in ("longbench_suite", "tests", "perf", "examples") for p in (ROOT / d).rglob("*.py")]


def _references() -> list[tuple[Path, str, str]]:
    found = []
    for path in _sources():
        for match in REFERENCE.finditer(path.read_text(encoding="utf-8")):
            for section in SECTION.findall(match.group(2)):
                found.append((path, match.group(1), section))
            if not match.group(2):
                found.append((path, match.group(1), ""))
    return found


def test_every_docs_reference_names_an_existing_file_and_section():
    references = _references()
    assert len(references) > 50  # the code does cite its documentation
    headings = {}
    broken = []
    for path, doc, section in references:
        target = ROOT / doc
        if not target.is_file():
            broken.append(f"{path.relative_to(ROOT)}: {doc} does not exist")
            continue
        if doc not in headings:
            headings[doc] = set(HEADING.findall(target.read_text(encoding="utf-8")))
        if section and section not in headings[doc]:
            broken.append(f"{path.relative_to(ROOT)}: {doc} has no section {section}")
    assert broken == []


def test_no_reference_points_outside_the_repository():
    outside = re.compile(
        r"\.\./shared|specs/[\w-]+\.md|``(?:helmet|helmet-derived|longbench|lveval|adaleval)\.md``"
    )
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if outside.search(line)
    ]
    assert offenders == []


#: a module or package named in a layout block: ``api.py``, ``fit/``
LAYOUT_ENTRY = re.compile(r"(?<![\w/<>.])([a-z_]\w*(?:\.py|/))(?=\s|$)")


def _layout_block(text: str, after: str) -> list[str]:
    """The lines of the first fenced block after the line ``after``."""
    section = text.split(after, 1)[1]
    return section.split("```", 2)[1].splitlines()[1:]


def _package_entries(lines: list[str]) -> set[str]:
    """The modules and packages of ``longbench_suite/`` a layout names: its indented lines' left column."""
    names = set()
    for line in lines:
        if line.startswith("  ") and line.strip():
            left = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
            names.update(LAYOUT_ENTRY.findall(left))
    return names


def test_the_layouts_name_the_package_as_it_is():
    package = ROOT / "longbench_suite"
    present = {p.name + "/" for p in package.iterdir() if (p / "__init__.py").exists()}
    present |= {p.name for p in package.glob("*.py") if p.name not in ("__init__.py", "_version.py")}
    present.discard("benchmarks/")  # its own line: benchmarks/<name>/
    architecture = _package_entries(
        _layout_block((ROOT / "docs/architecture.md").read_text(encoding="utf-8"), "## 2. Layout")
    )
    assert architecture == present, "docs/architecture.md §2 lists every module and package, and no other"
    readme_text = (ROOT / "README.md").read_text(encoding="utf-8")
    readme = _package_entries(_layout_block(readme_text, "## Development"))
    assert readme and readme <= present, f"README's Development layout: no {readme - present}"
