"""Fresh synthetic-recall rows at any length and tokenizer: RULER's NIAH variants and JSON KV
(``docs/generate.md``).

A ``gen_<variant>_<length>`` config has one split, ``dev``, of ``rows`` generated rows (its ``eval`` is
HELMET's task of the same kind). ``length`` is any token count (``6k``, ``48k``, ``200k``, ``1m``;
K = 1024). Options, through ``generate={...}``:

- ``seed`` (42), ``rows`` (500; ``None``: unbounded, for streaming);
- ``recipe``: ``"helmet"`` (HELMET's template and generation length, budget ``max_length −
  max_new_tokens``, one generator per row so rows shard) or ``"ruler"`` (RULER's own template, 128
  generated tokens and one random stream: RULER's rows, byte for byte);
- ``haystack``: ``noise``, ``needle`` or ``essay`` instead of the variant's own;
- ``essay``: a file for the essay haystack (RULER's ``PaulGrahamEssays.json``, or plain text);
- ``screen`` (``True``): avoid the keys and values of the ``eval`` rows of HELMET's matching task at
  every length, read once from HELMET's files and cached (:data:`SCREENS`); ``False`` reads nothing
  (rows may then share keys with HELMET's eval).

Screened, the default recipe never draws an ``eval`` key or value; RULER's recipe makes RULER's draws
and skips a row whose asked key or answer is one (``docs/generate.md`` §5).

Limits, checked before any work (``docs/generate.md`` §1; :mod:`longbench_suite.generate.limits`): the
length, the rows and the essay file's size and content (UTF-8 text, not blank, no NUL or lone surrogate).
"""

from __future__ import annotations

import itertools
import logging
import random
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from longbench_suite.errors import OptionError, SourceError
from longbench_suite.fit.generated import PROMPT_FIELD, FitsByConstruction, GeneratedPrompt
from longbench_suite.generate import niah_ruler
from longbench_suite.generate.count import PromptCounter
from longbench_suite.generate.kv import DEPTHS as KV_DEPTHS
from longbench_suite.generate.kv import kv_row
from longbench_suite.generate.limits import TokenCountLengths, check_length, check_rows, read_essay
from longbench_suite.generate.niah import HAYSTACKS, NOTHING, VARIANTS, Essay, Excluded, NiahSettings, Sample
from longbench_suite.generate.niah_ruler import essay_haystack, ruler_draws, singular
from longbench_suite.generate.search import Prompt, Sizer
from longbench_suite.instance import Instance, Plan
from longbench_suite.memo import Codec, Memo
from longbench_suite.partition import sampling
from longbench_suite.partition.leakage import LeakageRule
from longbench_suite.render import PromptTemplate
from longbench_suite.task import BuildEnv

from .common import ARCHIVE, HelmetTask, digest_id
from .lengths import LENGTHS
from .recall import JSON_KV_DEMO, JSON_KV_TEMPLATE, RULER_MK_TEMPLATE, RULER_MV_TEMPLATE
from .recall import TASKS as RECALL

#: RULER's niah template, answer prefix and generation length (core: HELMET's ``recipe="ruler"`` and the
#: ``ruler`` benchmark make RULER's rows with the same code)
RULER_USER = niah_ruler.TEMPLATE
RULER_PREFIX = niah_ruler.ANSWER_PREFIX
RULER_TOKENS_TO_GENERATE = niah_ruler.TOKENS_TO_GENERATE
MARK = "\x00context\x00"
RECIPES = ("helmet", "ruler")
#: each generator's screen: the keys and values of its matching task's ``eval`` rows at every HELMET
#: length, kept on disk (``<cache>/longbench_suite/sources/memo/generate-screen/``) so HELMET's files
#: are read for it once per cache
SCREENS: Memo[frozenset[str]] = Memo("generate-screen", entries=4, codec=Codec(dump=sorted, load=frozenset))
logger = logging.getLogger("longbench_suite")
#: (config, cache) whose screen this process announced (a build asks for its sources more than once)
_ANNOUNCED: set[tuple[str, str | None]] = set()


@dataclass(frozen=True)
class Options:
    seed: int = 42
    rows: int | None = 500
    recipe: str = "helmet"
    haystack: str | None = None
    essay: str | None = None
    screen: bool = True

    @classmethod
    def of(cls, given: Mapping[str, Any] | None, where: str) -> Options:
        given = dict(given or {})
        unknown = sorted(set(given) - set(cls.__dataclass_fields__))
        if unknown:
            raise OptionError(
                f"{where}: unknown generate option(s) {unknown}; known: {sorted(cls.__dataclass_fields__)}"
            )
        options = cls(**given)
        if type(options.seed) is not int:  # True is an int to isinstance
            raise OptionError(f"{where}: generate seed must be an integer, got {options.seed!r}")
        check_rows(options.rows, where)
        if type(options.screen) is not bool:
            raise OptionError(f"{where}: generate screen must be true or false, got {options.screen!r}")
        if options.haystack is not None and options.haystack not in HAYSTACKS:
            raise OptionError(
                f"{where}: generate haystack must be one of {HAYSTACKS}, got {options.haystack!r}"
            )
        if options.recipe not in RECIPES:
            raise OptionError(f"{where}: generate recipe must be one of {RECIPES}, got {options.recipe!r}")
        return options


@dataclass(frozen=True, eq=False, kw_only=True)
class GeneratedTask(TokenCountLengths, HelmetTask):
    """A generator: any length, one ``dev`` split of generated rows."""

    #: the HELMET task whose ``eval`` rows generated rows avoid
    matches: str = ""
    #: no listed lengths: a generator config exists at whatever length is asked for
    lengths: tuple[str, ...] = ()
    fit: FitsByConstruction = field(default_factory=FitsByConstruction)
    missing_split_reasons: ClassVar[Mapping[str, str]] = {
        "eval": "generated configs have only 'dev' (training rows); evaluate on HELMET's matching task"
    }

    def check_generate(self, options: Mapping[str, Any] | None, length: str | None = None) -> None:
        self.check_options(Options.of(options, self.name))
        self.check_length(length)

    def check_options(self, options: Options) -> None:
        """Refuse options this generator does not take (the options' own ranges are checked already)."""

    def check_length(self, length: str | None) -> None:
        check_length(self.name + "_" + (length or ""), length)

    def matching(self) -> HelmetTask:
        return next(t for t in RECALL if t.name == self.matches)

    def sources(self, length: str) -> dict:
        # the matching task's file at every HELMET length, for the eval rows to avoid
        return {f"eval_{n}": self.matching().sources(n)["test"] for n in LENGTHS}

    def card_columns(self) -> dict[str, str]:
        return {"HELMET name": f"generated; avoids `{self.matches}` eval rows"}

    def facts(self, length: str) -> dict:
        return {"generator": self.name, "avoids eval rows of": f"helmet/{self.matches}"}

    def generated_facts(self, length: str, options: Mapping[str, Any] | None, **build: Any) -> dict[str, Any]:
        given = Options.of(options, self.name)
        return {
            "generator": self.name.removeprefix("gen_"),
            "recipe": given.recipe,
            "seed": given.seed,
            "rows": "unbounded" if given.rows is None else given.rows,
            "avoids eval rows of": self.screen_text(given),
        }

    def screen_text(self, options: Options) -> str:
        """What the screen against the matching task's ``eval`` rows does under ``options``."""
        if not options.screen:
            return "none (screen off: rows may share keys with HELMET's eval)"
        lengths = f"`{self.matches}` ({', '.join(LENGTHS)})"
        if options.recipe == "ruler":
            return f"{lengths}, asked keys and answers only (RULER's draws; a row asking for one is skipped)"
        return lengths

    def screen_key(self, env: BuildEnv) -> tuple:
        """What the screen depends on: the matching task, its lengths and files, and where they come
        from (mirror, ``data_dir``, local files' sizes and mtimes); the memo adds the library version."""
        sources = tuple(source.path for source in self.sources(next(iter(LENGTHS))).values())
        return ("screen", self.matches, tuple(LENGTHS), ARCHIVE.url, sources, env.source_identity)

    def sources_to_read(self, length: str, env: BuildEnv) -> dict:
        """The ``eval`` files to screen against, unless ``screen`` is off or their screen is cached."""
        options = Options.of(env.generate, env.config_name)
        if not options.screen or SCREENS.stored(self.screen_key(env), (), cache_root=env.cache_root):
            return {}
        sources = self.sources(length)
        if (env.config_name, env.cache_root) in _ANNOUNCED:
            return sources
        _ANNOUNCED.add((env.config_name, env.cache_root))
        members = ", ".join(source.path for source in sources.values())
        logger.warning(
            "%s: screening against HELMET's eval: reading the eval rows of %s at %s (%s) from HELMET's "
            "%s (%s), once per cache; generate={'screen': False} skips it (rows may then share keys with "
            "HELMET's eval)",
            env.config_name,
            self.matches,
            ", ".join(LENGTHS),
            members,
            ARCHIVE.name,
            ARCHIVE.size,
        )
        return sources

    def excluded(self, files, env: BuildEnv, options: Options) -> Excluded:
        """The screen: every key and value in the ``eval`` rows of the matching task, at every HELMET
        length (cached on disk); nothing when ``screen`` is off."""
        if not options.screen:
            return NOTHING
        keys = SCREENS.get(
            self.screen_key(env), (), lambda: self.eval_keys(files, env), cache_root=env.cache_root
        )
        return Excluded(keys)

    def eval_keys(self, files, env: BuildEnv) -> frozenset[str]:
        task, strings = self.matching(), set()
        for length in LENGTHS:
            if f"eval_{length}" not in files:  # the cached screen sources_to_read saw is gone
                raise SourceError(
                    f"{env.config_name}: the cached screen against HELMET's eval went away during the "
                    "build; run it again"
                )
            sub = {"test": files[f"eval_{length}"]}
            plan = task.plan("eval", length, sub, env)
            for instance in task.instances("eval", length, sub, plan, plan.items, env):
                strings.update(self.eval_strings(instance))
        return frozenset(strings)

    def eval_strings(self, instance: Instance) -> set[str]:
        raise NotImplementedError

    def unbounded(self, options: Mapping[str, Any] | None) -> bool:
        return Options.of(options, self.name).rows is None

    def plan(self, split: str, length: str, files, env: BuildEnv) -> Plan:
        options = Options.of(env.generate, env.config_name)
        rows = options.rows
        if options.recipe == "ruler":  # one random stream for all rows, as RULER draws them: one shard
            return Plan(None, shared=self.state(length, files, env, options))
        # rows are independent (each its own seed): an unbounded plan is a range as long as any can be
        planned = range(sys.maxsize if rows is None else rows)
        return Plan(planned, shared=self.state(length, files, env, options))

    def state(self, length: str, files, env: BuildEnv, options: Options) -> Any:
        raise NotImplementedError

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        options = Options.of(env.generate, env.config_name)
        indices = (
            items
            if items is not None
            else (range(options.rows) if options.rows is not None else itertools.count())
        )
        yield from self.generated(length, plan.shared, indices, options, env)

    def limit(self, length: str, env: BuildEnv) -> int:
        return self.budget_rule(length, env.max_input_tokens).tokens

    def row_rng(self, options: Options, length: str, index: int) -> random.Random:
        return sampling.python_rng(sampling.derived_seed("generate", self.name, length, options.seed, index))


@dataclass(frozen=True, eq=False, kw_only=True)
class NiahTask(GeneratedTask):
    variant: str = ""

    def settings(self, options: Options) -> NiahSettings:
        settings = VARIANTS[self.variant]
        return replace(settings, haystack=options.haystack) if options.haystack else settings

    def check_options(self, options: Options) -> None:
        if self.settings(options).haystack != "essay":
            return
        if not options.essay:
            raise OptionError(
                f"{self.name}: the essay haystack needs a file: generate={{'essay': PATH}} (RULER's "
                "PaulGrahamEssays.json or plain text), or another haystack: generate={'haystack': 'noise'}"
            )
        read_essay(options.essay)  # its size and content, before any work

    def generated_facts(self, length: str, options: Mapping[str, Any] | None, **build: Any) -> dict[str, Any]:
        haystack = self.settings(Options.of(options, self.name)).haystack
        return {**super().generated_facts(length, options, **build), "haystack": haystack}

    def eval_strings(self, instance: Instance) -> set[str]:
        strings = {instance.fields["query"], *instance.answers}
        for key, value in re.findall(NEEDLE_KEYS, instance.fields["context"]):  # what check looks for
            strings.update((key, value))
        return strings

    def render(self, settings: NiahSettings, recipe: str) -> PromptTemplate:
        if recipe == "ruler":
            if settings.single:
                return PromptTemplate(singular(RULER_USER), singular(RULER_PREFIX))
            return PromptTemplate(RULER_USER, RULER_PREFIX)
        return RULER_MK_TEMPLATE if settings.single else RULER_MV_TEMPLATE

    def state(self, length: str, files, env: BuildEnv, options: Options) -> Any:
        settings = self.settings(options)
        essay = None
        if settings.haystack == "essay":
            essay = essay_haystack(read_essay(options.essay))
        counter = PromptCounter(env.tokenizer)
        excluded = self.excluded(files, env, options)
        if options.recipe == "ruler":
            # RULER's stream must make RULER's draws: its rows that ask for an eval key or value are
            # skipped instead (docs/generate.md §5); the helmet recipe never draws one at all
            return settings, essay, counter, excluded
        template = self.render(settings, options.recipe)

        def prompt(sample: Sample) -> Prompt:
            fields = {"type_needle_v": settings.type_needle_v, "query": sample.query, "context": MARK}
            head, tail = template.render_completion(fields).split(MARK)
            return Prompt(head, sample.lines, tail)

        sizer = Sizer(
            settings,
            prompt,
            counter,
            self.limit(length, env),
            self.max_length(length),
            options.seed,
            essay,
            excluded,
            where=env.config_name,
        )
        search_rng = sampling.python_rng(
            sampling.derived_seed("generate-search", self.name, length, options.seed)
        )
        sizer.search(search_rng)
        return settings, essay, sizer, sizer.start()

    def generated(self, length, shared, indices, options: Options, env) -> Iterator[Instance]:
        settings, essay = shared[:2]
        template = self.render(settings, options.recipe)
        if options.recipe != "ruler":
            sizer, size = shared[2:]
            for index in indices:
                drawn = sizer.fill(self.row_rng(options, length, index), size)
                yield self.instance(drawn, length, index, options, template, settings, essay)
            return
        counter, excluded = shared[2:]
        draws = ruler_draws(
            settings,
            counter,
            RULER_USER + RULER_PREFIX,
            max_seq_length=self.max_length(length),
            tokens_to_generate=RULER_TOKENS_TO_GENERATE,
            seed=options.seed,
            essay=essay,
            excluded=excluded.strings,
            where=env.config_name,
        )
        for index, drawn in zip(indices, draws, strict=False):
            yield self.instance(drawn, length, index, options, template, settings, essay)

    def instance(
        self,
        drawn,
        length: str,
        index: int,
        options: Options,
        template: PromptTemplate,
        settings: NiahSettings,
        essay: Essay | None,
    ) -> Instance:
        sample = drawn.sample
        fields = {"type_needle_v": settings.type_needle_v, "query": sample.query}
        suffix = template.render_suffix(fields)
        text = drawn.prompt.text
        answers = list(sample.answers)
        metadata = {
            "generator": self.variant,
            "recipe": options.recipe,
            "seed": options.seed,
            "row": index,
            "haystack": settings.haystack,
            "essay_sha256": essay.digest if essay is not None else None,
            "haystack_units": len(sample.lines) - len(sample.keys) * settings.values
            if settings.haystack != "essay"
            else None,
            "keys": list(sample.keys),
        }
        return Instance(
            query_id=digest_id(self.name, sample.query, *answers),
            fields={
                **fields,
                "context": sample.context,
                PROMPT_FIELD: GeneratedPrompt(text, suffix, drawn.tokens),
            },
            output=", ".join(answers),
            answers=answers,
            columns=self.columns(length, question=sample.query, metadata=metadata),
        )


@dataclass(frozen=True, eq=False, kw_only=True)
class JsonKvGenTask(GeneratedTask):
    def eval_strings(self, instance: Instance) -> set[str]:
        uuids = re.findall(UUID_KEYS, instance.fields["context"])
        return {instance.fields["question"], *instance.answers, *uuids}

    def check_options(self, options: Options) -> None:
        if options.recipe != "helmet" or options.haystack or options.essay:
            raise OptionError(f"{self.name}: JSON KV takes only the seed, rows and screen options")

    def state(self, length: str, files, env: BuildEnv, options: Options) -> Any:
        return PromptCounter(env.tokenizer), self.excluded(files, env, options)

    def generated(self, length, shared, indices, options: Options, env) -> Iterator[Instance]:
        counter, excluded = shared
        limit = self.limit(length, env)

        def render(lines, key, demos):
            demo_text = "\n\n".join(JSON_KV_DEMO.format(key=k, value=" " + v) for k, v in demos) + "\n\n"
            fields = {"context": MARK, "demos": demo_text, "question": key}
            head, tail = self.template.render_completion(fields).split(MARK)
            return head, tail, self.template.render_suffix(fields)

        for index in indices:
            depth = KV_DEPTHS[index % len(KV_DEPTHS)]
            row = kv_row(
                self.row_rng(options, length, index), depth, render, counter, limit, excluded, env.config_name
            )
            yield Instance(
                query_id=digest_id(self.name, row.key, row.value),
                fields={
                    "question": row.key,
                    PROMPT_FIELD: GeneratedPrompt(row.prompt, row.suffix, row.tokens),
                },
                output=row.value,
                answers=[row.value],
                columns=self.columns(
                    length,
                    question=row.key,
                    depth=depth,
                    metadata={
                        "generator": "json_kv",
                        "seed": options.seed,
                        "row": index,
                        "num_kvs": len(row.pairs),
                    },
                ),
            )


_GEN = dict(use_chat_template=False, category="Recall")
_NIAH = dict(metric="ruler_recall", **_GEN)
#: what ``check`` finds in a row's input: each needle's key and value; each UUID of a JSON object
NEEDLE_KEYS = r"special magic \w+ for (.+?) is: (.+?)\.(?=\s|$)"
UUID_KEYS = r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"


def _leakage(matches: str, pattern: str) -> LeakageRule:
    reason = f"no key, value or needle of a generated row is in {matches}'s eval rows at any length"
    return LeakageRule(columns=(), reason=reason, pattern=pattern, reference=matches)


def _match(settings: NiahSettings) -> str:
    if not settings.single:
        return "ruler_mv"
    return "ruler_mk_uuid" if settings.value_kind == "uuids" else "ruler_mk_needle"


TASKS = (
    JsonKvGenTask(
        name="gen_json_kv",
        helmet_name="json_kv",
        description="Generated JSON KV rows at any length (HELMET's template); avoids json_kv's eval rows.",
        template=JSON_KV_TEMPLATE,
        max_new_tokens=100,
        metric="json_kv_subem",
        matches="json_kv",
        leakage=_leakage("json_kv", UUID_KEYS),
        **_GEN,
    ),
    *(
        NiahTask(
            name=f"gen_{variant}",
            helmet_name=f"generated:{variant}",
            description=f"Generated RULER {variant} rows at any length and tokenizer.",
            template=RULER_MK_TEMPLATE if settings.single else RULER_MV_TEMPLATE,
            max_new_tokens=100 if settings.value_kind == "uuids" else 50,
            matches=_match(settings),
            leakage=_leakage(_match(settings), NEEDLE_KEYS),
            variant=variant,
            **_NIAH,
        )
        for variant, settings in VARIANTS.items()
    ),
)
