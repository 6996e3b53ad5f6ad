"""``longbench-suite check``: verify built configs against what every benchmark promises.

The requested configs are built first if needed (the same options as ``build``), then their splits are
read back in batches and checked against their task's declarations:

* **sizes** — each split has the size :meth:`Task.expected_sizes` fixes (a missing split is a violation),
  or, for a build from a sample mirror, the size its manifest declares (``docs/architecture.md`` §7;
  a split the manifest does not declare is not size-checked); a ``dev`` size counts candidates, so
  the expected size is the spec's minus the candidates the task's leakage rule dropped, which
  ``check`` reads from the split's plan, computed from the sources again;
* **empty** — no value of :attr:`Task.nonempty_columns` is empty (``""``, whitespace only, ``[]``);
* **budget** — every ``input`` fits :meth:`Task.budget_rule` under the config's tokenizer, special
  tokens included (no tokenizer is loaded for a config without a budget); in a build with a chat
  template, a chat-mode row's user turn rendered with it fits, within HELMET's single-cut tolerance,
  and the row names that template;
* **leakage** — no ``dev`` row shares a key of :meth:`Task.leakage_keys` (the task's
  :attr:`Task.leakage` rule: ``query_id``, the normalised question, or what else the task declares)
  with an ``eval`` row of the same task, at any of the checked lengths: give every length of a task (or
  its benchmark) to check across all of them; and every ``dev`` candidate the build dropped does share
  one with an ``eval`` row of its config (the builder follows the rule, no more). A task whose rule
  names a ``reference`` (a generator: HELMET's matching task; a RULER task: itself) is held to that
  task's ``eval`` rows in the configs :meth:`Task.leakage_references` names — the one list ``dev``'s
  builder screens against too: by default every length the reference has; for RULER every listed length
  and the config's own, with the build's essay file, and the config's own in the build's prompt mode
  and chat template — built with the same sources and tokenizer (no ``max_input_tokens``; what HELMET's
  own fit cuts under a heavier tokenizer is not compared); the keys are the rule's, the strings its
  ``pattern`` (or ``extract``) finds in the rows' text included, and the table's ``leaked`` column
  counts the ``dev`` rows that share one.

The table also reports, per split, how many inputs were cut to fit their budget (``cut to fit``: the
``input_truncated`` rows, over the budget before the cut, not after; what ``over_length="skip"``
would leave out).

Every violation names the config, the split, and the rows or keys at fault.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from . import api, registry
from .errors import UnknownNameError
from .fit.chat import ChatTemplate
from .fit.rules import InputBudget, chat_budget
from .options import BuildOptions
from .partition.leakage import EvalReference, LeakageRule
from .publish.stats import format_table
from .row import CHAT_TEMPLATE_COLUMN
from .source import MIRROR_ENV
from .source.manifest import read_manifest
from .task import Task
from .training.formats import user_turn

#: rows (or keys) named in one violation before the rest are only counted
EXAMPLES = 5


@dataclass(frozen=True)
class Violation:
    check: str  # "sizes", "empty", "budget" or "leakage"
    where: str  # "helmet/nq_8k eval", or "helmet/nq" for leakage across lengths
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.where}: {self.message}"


@dataclass(frozen=True)
class SplitResult:
    config: str
    split: str
    rows: int
    expected: int | None
    budget: InputBudget | None
    max_tokens: int | None
    #: inputs cut to fit the budget (``input_truncated``); ``None`` for rows without that column
    over_length: int | None = None
    #: candidates the task's leakage rule dropped (``dev`` with a fixed size); ``None``: not counted
    dropped: int | None = None
    #: ``dev`` rows sharing a key with the rule's reference task's ``eval`` rows; ``None``: no reference
    leaked: int | None = None


@dataclass
class CheckReport:
    splits: list[SplitResult] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    #: the reference tasks' ``eval`` keys the ``leaked`` column compares with
    references: list[ReferenceKeys] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def format(self) -> str:
        table = format_table(
            (
                "config",
                "split",
                "rows",
                "expected",
                "dropped",
                "leaked",
                "budget",
                "max tokens",
                "cut to fit",
            ),
            (
                (
                    s.config,
                    s.split,
                    s.rows,
                    "-" if s.expected is None else s.expected,
                    "-" if s.dropped is None else s.dropped,
                    "-" if s.leaked is None else s.leaked,
                    _budget_text(s.budget),
                    "-" if s.max_tokens is None else s.max_tokens,
                    "-" if s.over_length is None else s.over_length,
                )
                for s in self.splits
            ),
        )
        configs = len({s.config for s in self.splits})
        if self.references:
            table += "\n\n" + "\n".join(
                f"leaked: dev rows sharing any of the {len(r.found)} keys of the eval rows of {r.task} "
                f"({', '.join(r.lengths)})"
                for r in self.references
            )
        if self.ok:
            return f"{table}\n\ncheck: OK — {configs} configs, {len(self.splits)} splits, no violations"
        count = f"{len(self.violations)} violation{'s' if len(self.violations) > 1 else ''}"
        lines = [table, "", f"{count}:"]
        lines += [f"  {v}" for v in self.violations]
        lines.append(f"\ncheck: FAILED — {count} in {configs} configs")
        return "\n".join(lines)


def _budget_text(budget: InputBudget | None) -> str:
    if budget is None:
        return "-"
    return f"{budget.tokens}" + (f" (+{budget.tolerance})" if budget.tolerance else "")


def _examples(items: Sequence[str]) -> str:
    shown = ", ".join(items[:EXAMPLES])
    return shown + (f" and {len(items) - EXAMPLES} more" if len(items) > EXAMPLES else "")


def is_empty(value: object) -> bool:
    """``None``, a blank string, or a list with nothing but blank strings in it (``[]``, ``[""]``)."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list | tuple):
        return all(is_empty(v) for v in value)
    return False


def check_sizes(
    where: str,
    expected: Mapping[str, int],
    actual: Mapping[str, int],
    dropped: Mapping[str, int] | None = None,
    fixer: str = "the spec fixes",
) -> list[Violation]:
    """Each split the specs size, minus the candidates the leakage rule dropped, against the built split."""
    found = []
    for split, size in expected.items():
        drops = (dropped or {}).get(split, 0)
        spec = f"{size} − {drops} dropped = {size - drops}" if drops else f"{size}"
        if split not in actual:
            found.append(Violation("sizes", f"{where} {split}", f"missing; {fixer} {spec} rows"))
        elif actual[split] != size - drops:
            found.append(Violation("sizes", f"{where} {split}", f"{actual[split]} rows; {fixer} {spec}"))
    return found


def expected_sizes(builder) -> tuple[Mapping[str, int], str]:
    """The split sizes a build is held to, and who fixes them: the manifest of the sample mirror it
    reads from, else the task's spec."""
    task, length = builder.config.task, builder.config.length
    mirror = builder.config.mirror if builder.config.mirror is not None else os.environ.get(MIRROR_ENV)
    samples = None if builder.config.data_dir else read_manifest(mirror)
    if samples is None:
        return task.expected_sizes(length), "the spec fixes"
    return samples.sizes.get(f"{builder.BENCHMARK.name}/{builder.config.name}", {}), "the samples declare"


class LeakageKeys:
    """The keys of one task's rows, by kind, key and split, collected across its lengths."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, dict[str, set[str]]]] = defaultdict(
            lambda: defaultdict(lambda: {"dev": set(), "eval": set()})
        )

    def add(self, keys: Mapping[str, str], split: str, config: str) -> None:
        if split not in ("dev", "eval"):
            return
        for kind, key in keys.items():
            self._seen[kind][key][split].add(config)

    def in_eval(self, keys: Mapping[str, str], config: str) -> bool:
        """Whether any of ``keys`` is a key of an ``eval`` row of ``config``."""
        return any(
            config in self._seen[kind][key]["eval"] for kind, key in keys.items() if kind in self._seen
        )

    def violations(self, where: str) -> list[Violation]:
        found = []
        for kind, keys in self._seen.items():
            shared = [
                f"{key!r:.80} (dev {', '.join(sorted(s['dev']))}; eval {', '.join(sorted(s['eval']))})"
                for key, s in keys.items()
                if s["dev"] and s["eval"]
            ]
            if shared:
                message = f"{len(shared)} {kind} values are in both dev and eval: {_examples(shared)}"
                found.append(Violation("leakage", where, message))
        return found


@dataclass(frozen=True)
class ReferenceKeys:
    """The keys of another task's ``eval`` rows at every length it has (:attr:`LeakageRule.reference`),
    each with the first config it was found in."""

    task: str  # "helmet/json_kv"
    lengths: tuple[str, ...]  # each config's length, and the options it was built with ("4k (essay=…)")
    rule: LeakageRule
    found: Mapping[str, str]

    @staticmethod
    def row_keys(rule: LeakageRule, row: Mapping) -> set[str]:
        return set(rule.keys(row).values()) | rule.strings(row)

    def leaked(self, row: Mapping) -> str | None:
        """A key the row shares with the reference's ``eval`` rows, and where; ``None`` if none."""
        for key in sorted(self.row_keys(self.rule, row) & self.found.keys()):
            return f"{key!r:.60} in {self.found[key]} eval"
        return None


def _reference_task(builder) -> Task:
    bench = builder.BENCHMARK
    rule = builder.config.task.leakage
    reference = next((t for t in bench.tasks if t.name == rule.reference), None)
    if reference is None:
        raise UnknownNameError(
            f"{bench.name}/{builder.config.task.name}: its leakage rule names no task of {bench.name}: "
            f"{rule.reference!r}"
        )
    return reference


def eval_references(builder) -> tuple[EvalReference, ...]:
    """The ``eval`` configs ``builder``'s ``dev`` rows are held to (:meth:`Task.leakage_references`)."""
    task, length = builder.config.task, builder.config.length
    chat = builder.chat_template is not None
    return task.leakage_references(_reference_task(builder), length, builder.config.generate, chat)


def _reference_builders(builder) -> list:
    """The builders of the reference task's ``eval`` configs, with ``builder``'s sources and tokenizer
    and, as :func:`eval_references` says, its ``generate`` options and chat template."""
    bench, reference = builder.BENCHMARK, _reference_task(builder)
    options = BuildOptions(
        tokenizer=builder.tokenizer,
        mirror=builder.config.mirror,
        data_dir=builder.config.data_dir,
        cache_dir=builder.cache_root,
    )
    return [
        api.get_builder(
            f"{bench.name}/{reference.config_name(r.length)}",
            split="eval",
            options=options.replace(
                generate=dict(r.generate) or None, chat_template=builder.chat_template if r.chat else None
            ),
        )
        for r in eval_references(builder)
    ]


def reference_keys(builder, batch_size: int = 64) -> ReferenceKeys:
    """Build (or reuse) the reference task's ``eval`` configs and collect the keys of their rows."""
    rule = builder.config.task.leakage
    builders = _reference_builders(builder)
    api.prepare(builders)
    found: dict[str, str] = {}
    columns = [*rule.columns, *rule.scanned]
    for reference in builders:
        config = f"{reference.BENCHMARK.name}/{reference.config.name}"
        dataset = api.prepared(reference, "eval")
        wanted = [c for c in dict.fromkeys(columns) if c in dataset.column_names]
        for batch in dataset.select_columns(wanted).iter(batch_size=batch_size):
            for i in range(len(batch[wanted[0]])):
                for key in ReferenceKeys.row_keys(rule, {c: batch[c][i] for c in wanted}):
                    found.setdefault(key, config)
    lengths = tuple(str(r) for r in eval_references(builder))
    return ReferenceKeys(f"{builders[0].BENCHMARK.name}/{rule.reference}", lengths, rule, found)


class _Collector:
    """What one property's check reads of a split, a batch at a time, and what it finds there."""

    columns: list[str]

    def add(self, batch: Mapping[str, list], first: int, n: int) -> None:
        """Read rows ``first`` to ``first + n`` of the split (``batch`` holds :attr:`columns`)."""

    def violations(self, rows: int) -> list[Violation]:
        """What the split of ``rows`` rows violates, once every batch was read."""
        return []


class _CutToFit(_Collector):
    """How many inputs were cut to fit (``input_truncated``; ``None`` for rows without the column)."""

    def __init__(self, columns: set[str]) -> None:
        self.columns = ["input_truncated"] if "input_truncated" in columns else []
        self.count = 0 if self.columns else None

    def add(self, batch: Mapping[str, list], first: int, n: int) -> None:
        if self.columns:
            self.count += sum(batch["input_truncated"])


class _EmptyValues(_Collector):
    """Rows with an empty value in a column the task declares non-empty."""

    def __init__(self, where: str, task: Task, columns: set[str]) -> None:
        self.where = where
        self.columns = [c for c in task.nonempty_columns if c in columns]
        self.empty: dict[str, list[str]] = defaultdict(list)

    def add(self, batch: Mapping[str, list], first: int, n: int) -> None:
        for name in self.columns:
            self.empty[name] += [str(first + i) for i, v in enumerate(batch[name]) if is_empty(v)]

    def violations(self, rows: int) -> list[Violation]:
        return [
            Violation(
                "empty", self.where, f"{len(at)} of {rows} rows have an empty {name!r}: rows {_examples(at)}"
            )
            for name, at in self.empty.items()
            if at
        ]


class _Leakage(_Collector):
    """The rows' leakage keys, into the task's :class:`LeakageKeys` (compared across lengths later); with
    a ``reference``, the ``dev`` rows sharing a key with its ``eval`` rows."""

    def __init__(
        self,
        config: str,
        split: str,
        task: Task,
        keys: LeakageKeys,
        reference: ReferenceKeys | None,
        columns: set[str],
    ) -> None:
        self.where, self.split, self.length = f"{config} {split}", split, config.split("/", 1)[1]
        self.task, self.keys, self.reference = task, keys, reference
        keyed = dict.fromkeys([*task.leakage_columns, *task.leakage.columns])
        self.keyed = [c for c in keyed if c in columns]
        self.referenced = (
            [c for c in dict.fromkeys([*reference.rule.columns, *reference.rule.scanned]) if c in columns]
            if reference is not None and split == "dev"
            else []
        )
        self.columns = [*self.keyed, *self.referenced]
        self.leaked: list[str] = []

    def add(self, batch: Mapping[str, list], first: int, n: int) -> None:
        for i in range(n):
            keys = self.task.leakage_keys({c: batch[c][i] for c in self.keyed})
            self.keys.add(keys, self.split, self.length)
            if not self.referenced:
                continue
            shared = self.reference.leaked({c: batch[c][i] for c in self.referenced})
            if shared:
                self.leaked.append(f"row {first + i} ({shared})")

    @property
    def leaked_count(self) -> int | None:
        return len(self.leaked) if self.referenced else None

    def violations(self, rows: int) -> list[Violation]:
        if not self.leaked:
            return []
        reference = self.reference
        message = (
            f"{len(self.leaked)} of {rows} rows share a key, value or needle with the eval rows of "
            f"{reference.task} ({', '.join(reference.lengths)}): {_examples(self.leaked)}; keys read from "
            f"the rows' {', '.join(self.referenced)}"
        )
        return [Violation("leakage", self.where, message)]


class _Budget(_Collector):
    """Inputs over the budget under the config's tokenizer (with ``chat``: the user turn rendered with
    that template, and rows not fitted under it), and the largest input in tokens."""

    def __init__(self, where: str, budget: InputBudget, counter, chat: ChatTemplate | None) -> None:
        self.where, self.budget, self.counter, self.chat = where, budget, counter, chat
        self.columns = ["input", *(["answer_prefix", CHAT_TEMPLATE_COLUMN] if chat else [])]
        self.over: list[str] = []
        self.unfitted: list[str] = []
        self.max_tokens: int | None = None

    def add(self, batch: Mapping[str, list], first: int, n: int) -> None:
        chat = self.chat
        if chat:
            self.unfitted += [
                str(first + i) for i, t in enumerate(batch[CHAT_TEMPLATE_COLUMN]) if t != chat.identity
            ]
            prompts = [
                chat.render(user_turn({"input": t, "answer_prefix": p}))
                for t, p in zip(batch["input"], batch["answer_prefix"], strict=True)
            ]
            counts = self.counter.count_batch(prompts, special=False)
        else:
            counts = self.counter.count_batch(batch["input"])
        self.max_tokens = max([*counts, self.max_tokens or 0])
        self.over += [f"row {first + i} ({c})" for i, c in enumerate(counts) if c > self.budget.limit]

    def violations(self, rows: int) -> list[Violation]:
        found = []
        if self.unfitted:
            message = (
                f"{len(self.unfitted)} of {rows} chat-mode rows were not fitted under the build's chat "
                f"template {self.chat.identity}: rows {_examples(self.unfitted)}"
            )
            found.append(Violation("budget", self.where, message))
        if self.over:
            budget = self.budget
            tolerance = f" + {budget.tolerance} tolerance" if budget.tolerance else ""
            limit = f"{budget.tokens} tokens{tolerance}"
            message = (
                f"{len(self.over)} of {rows} inputs exceed {limit} ({budget.rule}) under "
                f"{self.counter.name}: {_examples(self.over)}"
            )
            found.append(Violation("budget", self.where, message))
        return found


def check_split(
    config: str,
    split: str,
    dataset,
    task: Task,
    budget: InputBudget | None,
    counter,
    leakage: LeakageKeys,
    expected: int | None = None,
    batch_size: int = 64,
    chat: ChatTemplate | None = None,
    reference: ReferenceKeys | None = None,
) -> tuple[SplitResult, list[Violation]]:
    """Read one built split in batches: empty values, inputs over budget, leakage keys.

    With ``chat`` (a build's chat template, for a chat-mode task) the budget is that of the user turn
    rendered with it, and every row must say it was fitted under it. With ``reference``, no ``dev``
    row may share a key with it.
    """
    where = f"{config} {split}"
    columns = set(dataset.column_names)
    cut = _CutToFit(columns)
    leaks = _Leakage(config, split, task, leakage, reference, columns)
    sizing = _Budget(where, budget, counter, chat) if budget else None
    collectors = [cut, _EmptyValues(where, task, columns), leaks, *([sizing] if sizing else [])]
    wanted = sorted({c for collector in collectors for c in collector.columns})
    row = 0
    for batch in dataset.select_columns(wanted).iter(batch_size=batch_size):
        n = len(batch[wanted[0]])
        for collector in collectors:
            collector.add(batch, row, n)
        row += n
    found = [v for collector in collectors for v in collector.violations(row)]
    max_tokens = sizing.max_tokens if sizing else None
    result = SplitResult(config, split, row, expected, budget, max_tokens, cut.count)
    return replace(result, leaked=leaks.leaked_count), found


def check(builders: Iterable, *, batch_size: int = 64) -> CheckReport:
    """Build (or reuse) every config, then check it; leakage is checked per task across the configs."""
    builders = list(builders)
    api.prepare(builders)
    report = CheckReport()
    leakage: dict[str, LeakageKeys] = defaultdict(LeakageKeys)
    references: dict[tuple, ReferenceKeys] = {}
    for builder in builders:
        task, length = builder.config.task, builder.config.length
        reference = None
        if task.leakage.reference:
            # collected once per reference and sources, for every config held to it
            identity = (
                task.leakage,
                builder.tokenizer.identity,
                builder.config.mirror,
                builder.config.data_dir,
                eval_references(builder),
                builder.chat_template.identity if builder.chat_template else None,
            )
            if identity not in references:
                references[identity] = reference = reference_keys(builder, batch_size)
                report.references.append(reference)
                if not reference.found:
                    rule = task.leakage
                    finds = f"pattern {rule.pattern!r} in " if rule.pattern else "in "
                    report.violations.append(
                        Violation(
                            "leakage",
                            reference.task,
                            f"its eval rows hold no key {task.name}'s leakage rule finds "
                            f"({finds}{', '.join(rule.scanned)}): there is nothing to compare with",
                        )
                    )
            reference = references[identity]
        qualified = f"{builder.BENCHMARK.name}/{builder.config.name}"
        splits = api.prepared(builder, None)
        expected, fixer = expected_sizes(builder)
        dropped = {}
        if "dev" in expected and "dev" in splits:
            dropped["dev"] = builder.split_plan("dev", api.download_manager(builder)).dropped
        counts = {split: len(keys) for split, keys in dropped.items()}
        actual = {s: len(d) for s, d in splits.items()}
        report.violations += check_sizes(qualified, expected, actual, counts, fixer)
        budget = task.budget_rule(length, builder.config.max_input_tokens)
        chat = builder.chat_template if task.use_chat_template else None
        if budget and chat:
            budget = chat_budget(budget, chat)
        counter = builder.tokenizer if budget else None
        # Read as few rows at a time as the benchmark writes (LV-Eval's 256k rows are MBs each).
        rows_per_batch = min(batch_size, builder.BENCHMARK.writer_batch_size or batch_size)
        for split, dataset in splits.items():
            result, found = check_split(
                qualified,
                split,
                dataset,
                task,
                budget,
                counter,
                leakage[f"{builder.BENCHMARK.name}/{task.name}"],
                expected=expected[split] - counts.get(split, 0) if split in expected else None,
                batch_size=rows_per_batch,
                chat=chat,
                reference=reference,
            )
            report.splits.append(replace(result, dropped=counts.get(split)))
            report.violations += found
        keys = leakage[f"{builder.BENCHMARK.name}/{task.name}"]
        for split, drops in dropped.items():
            unfounded = [str(d) for d in drops if not keys.in_eval(d, builder.config.name)]
            if unfounded:
                report.violations.append(
                    Violation(
                        "leakage",
                        f"{qualified} {split}",
                        f"the build dropped {len(unfounded)} candidates that share no key with an eval row: "
                        f"{_examples(unfounded)}",
                    )
                )
    for where, keys in leakage.items():
        report.violations += keys.violations(where)
    return report


def expand_targets(targets: Sequence[str]) -> list[str]:
    """Qualified config names of benchmarks, tasks (every length) and configs; none means everything."""
    if not targets:
        return registry.list_configs()
    names: list[str] = []
    for target in targets:
        for name in _expand(target):
            if name not in names:
                names.append(name)
    return names


def _expand(target: str) -> list[str]:
    if target in registry.benchmark_names():
        return registry.list_configs(target)
    try:
        return ["/".join(registry.resolve(target))]
    except UnknownNameError as unknown:
        bench_name, _, task_name = target.rpartition("/")
        owners = [bench_name] if bench_name else registry.benchmark_names()
        matches = [
            f"{b}/{task.config_name(length)}"
            for b in owners
            if b in registry.benchmark_names()
            for task in registry.benchmark(b).tasks
            if task.name == task_name
            for length in task.lengths
        ]
        if not matches:
            raise unknown from None
        if len({m.split("/")[0] for m in matches}) > 1:
            raise UnknownNameError(
                f"task name {task_name!r} is ambiguous; qualify it as BENCHMARK/{task_name}"
            ) from None
        return matches
