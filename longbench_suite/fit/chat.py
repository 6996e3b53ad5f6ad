"""Chat templates: the Jinja template that turns one user turn into a chat model's prompt.

A :class:`ChatTemplate` renders ``[{"role": "user", "content": USER}]`` with a generation prompt and
no system message, as ``transformers``' ``apply_chat_template`` renders it (``docs/helmet.md`` §1.3):
a sandboxed ``jinja2`` environment with ``trim_blocks`` and ``lstrip_blocks``, loop controls, a
``tojson`` filter that does not escape HTML, ``raise_exception``, and the tokenizer's special tokens
(``bos_token``, ``eos_token``, …) as variables. :func:`load_chat_template` reads a template from:

- ``"tokenizer"``: the ``chat_template`` of the ``tokenizer_config.json`` beside the build's
  tokenizer (a local folder or ``tokenizer.json``, or a Hub repo), or of the transformers tokenizer
  object given as the tokenizer;
- a built-in name (:data:`BUILTIN`, the files in ``chat_templates/``);
- a ``.jinja`` file, a ``tokenizer_config.json`` or a folder holding one;
- the Jinja text itself (anything containing ``{{`` or ``{%``).

Special tokens come from the tokenizer's ``tokenizer_config.json`` or object (and from the template's own,
when it is one); a template that uses a variable neither supplies is refused, so nothing renders as
an empty string by accident.

A template is code from the user's side, so its work is bounded before anything is counted: it may not
include, import or extend other templates (the environment has no loader: nothing is read from disk);
its ``range()`` calls may together make at most :data:`MAX_RANGE_STEPS` steps per rendering; and a
rendering may hold the user turn plus at most :data:`TEMPLATE_CHARS_PER_TOKEN` characters per token of
the row's budget (:data:`UNBUDGETED_TEMPLATE_CHARS` where no budget is known). ``*``, ``**`` and the
widths given to string methods and to the ``center``/``indent`` filters are checked before they
compute, the result of ``%`` once it is made, and the output as it is produced; a template past a
bound is a :class:`ChatTemplateError` naming it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..errors import ChatTemplateError, MissingDependencyError
from .tokenizers import is_transformers_tokenizer

_SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
_BUILTIN_DIR = Path(__file__).resolve().parent / "chat_templates"
#: the templates this library ships, by name: ``chat_template="llama-2-chat"``
BUILTIN = {path.stem: path for path in sorted(_BUILTIN_DIR.glob("*.jinja"))}
TOKENIZER_CONFIG = "tokenizer_config.json"

#: A rendering may add at most this many characters per token of the row's budget to the user turn. A
#: template's own text must fit the budget beside the user turn; real templates add tens of tokens, and
#: no tokenizer this library counts with averages near 32 characters a token, so only a runaway
#: template reaches it, and the text handed to the token counter stays proportional to the row's budget.
TEMPLATE_CHARS_PER_TOKEN = 32
#: The bound on a template's own characters where no budget is known (``render`` without one).
UNBUDGETED_TEMPLATE_CHARS = 1 << 22
#: ``range()`` steps one rendering may make in all (jinja2's sandbox caps one range at this size).
MAX_RANGE_STEPS = 100_000

# The bound of the rendering under way: (characters it may hold, range steps left).
_RENDER_BOUND: ContextVar[tuple[int, list[int]]] = ContextVar("chat_template_bound")

def _jinja():
    try:
        import jinja2
        import jinja2.ext
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError:
        raise MissingDependencyError(
            "chat_template= renders Jinja templates and needs jinja2: pip install 'longbench-suite[chat]'"
        ) from None
    return jinja2, _bounded_sandbox(ImmutableSandboxedEnvironment)


def _bounded_sandbox(sandbox: type) -> type:
    """jinja2's immutable sandbox with ``*``, ``**``, ``%`` and ``range`` held to the rendering's bound."""
    from jinja2.exceptions import SecurityError

    class BoundedSandbox(sandbox):
        intercepted_binops = frozenset({"*", "**", "%"})

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.globals["range"] = _bounded_range
            for name in _WIDTH_FILTERS:  # their width arguments size the text they make
                self.filters[name] = _checked_widths(self.filters[name])

        def call(__self, __context, __obj, *args, **kwargs):  # names that no keyword argument can take
            if isinstance(getattr(__obj, "__self__", None), str):  # 'x'.ljust(n), .center(n), .zfill(n)
                _check_widths(args, kwargs)
            return super().call(__context, __obj, *args, **kwargs)

        def call_binop(self, context, operator: str, left, right):
            chars, _ = _RENDER_BOUND.get((UNBUDGETED_TEMPLATE_CHARS, [MAX_RANGE_STEPS]))
            made = 0
            if operator == "*":
                sized, times = (left, right) if isinstance(right, int) else (right, left)
                if isinstance(sized, (str, list, tuple)) and isinstance(times, int):
                    made = len(sized) * times
            elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1:
                made = abs(left).bit_length() * right  # bits
            if made > chars:
                raise SecurityError(f"'{operator}' would make {made} items, more than the {chars} allowed")
            result = super().call_binop(context, operator, left, right)
            if isinstance(result, str) and len(result) > chars:
                raise SecurityError(f"'{operator}' made {len(result)} characters, more than {chars}")
            return result

    return BoundedSandbox


#: jinja2's filters whose integer arguments are widths of the text they make
_WIDTH_FILTERS = ("center", "indent")


def _check_widths(args: tuple, kwargs: dict) -> None:
    from jinja2.exceptions import SecurityError

    chars, _ = _RENDER_BOUND.get((UNBUDGETED_TEMPLATE_CHARS, [MAX_RANGE_STEPS]))
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and value > chars:
            raise SecurityError(f"a width of {value} is more than the {chars} characters allowed")


def _checked_widths(jinja_filter):
    @functools.wraps(jinja_filter)  # keeps jinja2's pass_environment/pass_context marks
    def checked(value, *args, **kwargs):
        _check_widths(args, kwargs)
        return jinja_filter(value, *args, **kwargs)

    return checked


def _bounded_range(*args: int) -> range:
    from jinja2.exceptions import SecurityError

    steps = range(*args)
    _, left = _RENDER_BOUND.get((UNBUDGETED_TEMPLATE_CHARS, [MAX_RANGE_STEPS]))
    left[0] -= len(steps)
    if left[0] < 0:
        raise SecurityError(f"its range() calls make more than {MAX_RANGE_STEPS} steps in one rendering")
    return steps


def _token_text(value: object) -> str | None:
    """A special token as ``tokenizer_config.json`` writes it: a string or an ``AddedToken`` dict."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else None


def special_tokens(config: Mapping) -> dict[str, str]:
    """The special tokens a ``tokenizer_config.json`` names, as template variables."""
    tokens = {key: _token_text(config.get(key)) for key in _SPECIAL_KEYS}
    found = {key: text for key, text in tokens.items() if text is not None}
    extra = config.get("additional_special_tokens")
    if isinstance(extra, list):
        found["additional_special_tokens"] = [t for t in map(_token_text, extra) if t is not None]
    return found


@dataclass(frozen=True)
class ChatTemplate:
    """A Jinja chat template and the special tokens it is rendered with; ``name`` says where it came from."""

    name: str
    template: str
    variables: Mapping[str, object] = field(default_factory=dict)

    @cached_property
    def identity(self) -> str:
        """``<name>@<digest>``: what rows record; the digest covers the template and its variables."""
        text = json.dumps([self.template, dict(sorted(self.variables.items()))], ensure_ascii=False)
        return f"{self.name}@{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}"

    @cached_property
    def _compiled(self):
        jinja2, environment = _jinja()

        def raise_exception(message: str):
            raise jinja2.exceptions.TemplateError(message)

        def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
            return json.dumps(
                x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
            )

        def strftime_now(format: str):
            raise ChatTemplateError(
                f"chat template {self.name!r} puts today's date into the prompt (strftime_now), so its rows "
                "would change from day to day; give a template without it"
            )

        env = environment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
        env.filters["tojson"] = tojson
        env.globals.update(raise_exception=raise_exception, strftime_now=strftime_now)
        try:
            parsed = env.parse(self.template)
            compiled = env.from_string(self.template)
        except jinja2.exceptions.TemplateError as exc:
            raise ChatTemplateError(f"chat template {self.name!r} is not valid Jinja: {exc}") from None
        from jinja2 import meta, nodes

        if next(parsed.find_all((nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)), None):
            referenced = ", ".join(repr(n) for n in meta.find_referenced_templates(parsed))
            raise ChatTemplateError(
                f"chat template {self.name!r} includes, imports or extends another template ({referenced}); "
                "a chat template must be self-contained: nothing is read from disk"
            )

        used = meta.find_undeclared_variables(parsed)
        unknown = sorted(used & {*_SPECIAL_KEYS, "additional_special_tokens"} - set(self.variables))
        if unknown:
            raise ChatTemplateError(
                f"chat template {self.name!r} uses {', '.join(unknown)}, which the tokenizer's "
                f"{TOKENIZER_CONFIG} does not define; give the tokenizer folder that holds it"
            )
        return compiled

    def __getstate__(self) -> dict:
        # The compiled template does not pickle; worker processes compile their own.
        return {"name": self.name, "template": self.template, "variables": dict(self.variables)}

    def __setstate__(self, state: dict) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    def validate(self) -> ChatTemplate:
        """Compile the template now, so a bad one fails before anything is built."""
        self._compiled  # noqa: B018
        return self

    def render(self, user: str, budget_tokens: int | None = None) -> str:
        """The prompt of one user turn, with the generation prompt and no system message; the template
        may add at most :data:`TEMPLATE_CHARS_PER_TOKEN` characters per token of ``budget_tokens``."""
        compiled = self._compiled
        jinja2, _ = _jinja()
        own = UNBUDGETED_TEMPLATE_CHARS if budget_tokens is None else TEMPLATE_CHARS_PER_TOKEN * budget_tokens
        chars = len(user) + own
        bound = _RENDER_BOUND.set((chars, [MAX_RANGE_STEPS]))
        pieces, size = [], 0
        try:
            for piece in compiled.generate(
                messages=[{"role": "user", "content": user}],
                tools=None,
                documents=None,
                add_generation_prompt=True,
                **self.variables,
            ):
                size += len(piece)
                if size > chars:
                    raise jinja2.exceptions.SecurityError(
                        f"it rendered more than {chars} characters for a user turn of {len(user)}"
                    )
                pieces.append(piece)
        except jinja2.exceptions.SecurityError as exc:
            sized = "" if "range()" in str(exc) else (
                f" (the bound is the user turn plus {TEMPLATE_CHARS_PER_TOKEN} characters per budget token, "
                f"{own} here)"
            )
            raise ChatTemplateError(
                f"chat template {self.name!r} exceeds the work a template may do: {exc}{sized}"
            ) from None
        except (jinja2.exceptions.TemplateError, OverflowError, RecursionError) as exc:
            raise ChatTemplateError(f"chat template {self.name!r} refused a user turn: {exc}") from None
        finally:
            _RENDER_BOUND.reset(bound)
        return "".join(pieces)


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise ChatTemplateError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ChatTemplateError(f"{path} is not a JSON object")
    return data


def _template_of_config(config: Mapping, where: str) -> str:
    """The ``chat_template`` field: a string, or the ``default`` of a list of named templates."""
    value = config.get("chat_template")
    if isinstance(value, list):
        named = {t.get("name"): t.get("template") for t in value if isinstance(t, dict)}
        value = named.get("default")
    if not isinstance(value, str) or not value.strip():
        raise ChatTemplateError(f"{where} has no chat_template (a string, or a list with a 'default' one)")
    return value


def tokenizer_config_path(tokenizer_spec: object) -> str | None:
    """The ``tokenizer_config.json`` of a tokenizer given as a folder, a ``tokenizer.json`` or a Hub repo."""
    if not isinstance(tokenizer_spec, str):
        return None
    if os.path.isdir(tokenizer_spec):
        path = os.path.join(tokenizer_spec, TOKENIZER_CONFIG)
        return path if os.path.isfile(path) else None
    if os.path.isfile(tokenizer_spec):
        path = os.path.join(os.path.dirname(os.path.abspath(tokenizer_spec)), TOKENIZER_CONFIG)
        return path if os.path.isfile(path) else None
    if "/" in tokenizer_spec and not tokenizer_spec.startswith((".", "/")):
        from .hub import fetch_tokenizer_files

        return fetch_tokenizer_files(tokenizer_spec)[1]  # fails fast, in one line, as the tokenizer does
    return None


def load_chat_template(spec: str | ChatTemplate, tokenizer_spec: object = None) -> ChatTemplate:
    """The template ``spec`` names (see the module docstring), with the tokenizer's special tokens,
    compiled and checked."""
    return (spec if isinstance(spec, ChatTemplate) else _read_template(spec, tokenizer_spec)).validate()


def _object_settings(tokenizer) -> dict:
    """A transformers tokenizer object's chat template and special tokens, as its config names them."""
    settings = dict(getattr(tokenizer, "special_tokens_map", None) or {})
    template = getattr(tokenizer, "chat_template", None)
    settings["chat_template"] = template.get("default") if isinstance(template, dict) else template
    return settings


def _read_template(spec: str, tokenizer_spec: object) -> ChatTemplate:
    if not isinstance(spec, str) or not spec.strip():
        raise ChatTemplateError(f"chat_template must be a name, a path or Jinja text, got {spec!r}")
    if is_transformers_tokenizer(tokenizer_spec):
        config = _object_settings(tokenizer_spec)
        where = f"the {type(tokenizer_spec).__name__} object given as tokenizer"
        origin = getattr(tokenizer_spec, "name_or_path", "") or type(tokenizer_spec).__name__
        label = os.path.basename(origin.rstrip("/")) or origin
        if spec == "tokenizer" and not config["chat_template"]:
            raise ChatTemplateError(
                f"chat_template='tokenizer' uses the chat template of {where}, and it has none; "
                "set its chat_template, or give a template"
            )
    else:
        config_path = tokenizer_config_path(tokenizer_spec)
        config = _read_json(config_path) if config_path else None
        where, label = config_path, os.path.basename(os.path.dirname(config_path or ""))
        if spec == "tokenizer" and config is None:
            raise ChatTemplateError(
                f"chat_template='tokenizer' reads the {TOKENIZER_CONFIG} beside the tokenizer, and tokenizer "
                f"{tokenizer_spec!r} has none; give tokenizer=FOLDER holding it, or a template"
            )
    variables = special_tokens(config) if config else {}
    if spec == "tokenizer":
        return ChatTemplate(f"tokenizer:{label}", _template_of_config(config, where), variables)
    if "{{" in spec or "{%" in spec:
        return ChatTemplate("jinja", spec, variables)
    if spec in BUILTIN:
        return ChatTemplate(spec, BUILTIN[spec].read_text(encoding="utf-8"), variables)
    path = os.path.join(spec, TOKENIZER_CONFIG) if os.path.isdir(spec) else spec
    if not os.path.isfile(path):
        raise ChatTemplateError(
            f"chat_template {spec!r} is not 'tokenizer', a built-in template ({', '.join(BUILTIN)}), "
            f"an existing .jinja file, {TOKENIZER_CONFIG} or folder, or Jinja text"
        )
    name = (
        Path(path).stem
        if path.endswith(".jinja")
        else os.path.basename(os.path.dirname(os.path.abspath(path)))
    )
    if path.endswith(".json"):
        config = _read_json(path)
        return ChatTemplate(name, _template_of_config(config, path), {**variables, **special_tokens(config)})
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ChatTemplateError(f"cannot read chat template file {path}: {exc}") from None
    return ChatTemplate(name, text, variables)
