"""A Hugging Face model run in-process (``--backend transformers``), for small models and tests.

Chat rows go through the tokenizer's chat template (``add_generation_prompt``), completion rows are
tokenized as they are; decoding is the declared one (``do_sample`` off when greedy), the declared stop
strings end generation (``stop_strings``) and are cut from the text, as an OpenAI server does.
"""

from __future__ import annotations

import threading

from ..errors import GenerationError
from .backends import Reply, optional_import
from .requests import Request


class TransformersBackend:
    """``transformers`` ``AutoModelForCausalLM`` from a local directory; one request at a time."""

    concurrency = 1

    def __init__(self, model_path: str, *, device: str | None = None) -> None:
        optional_import("torch", "the transformers backend", "train")
        transformers = optional_import("transformers", "the transformers backend", "transformers")
        self.name = model_path
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(model_path)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(model_path)
        except (OSError, ValueError) as exc:
            raise GenerationError(f"cannot load the model {model_path}: {exc}".splitlines()[0]) from None
        if device:
            self.model.to(device)
        self.model.eval()
        self._lock = threading.Lock()

    def _inputs(self, request: Request):
        if not request.chat:
            return self.tokenizer(request.prompt, return_tensors="pt")
        if not getattr(self.tokenizer, "chat_template", None):
            raise GenerationError(
                f"{self.name}: {request.where} is a chat-mode row but the tokenizer has no chat template"
            )
        return self.tokenizer.apply_chat_template(
            request.messages(), add_generation_prompt=True, return_tensors="pt", return_dict=True
        )

    def generate(self, request: Request) -> Reply:
        import torch

        g = request.generation
        inputs = self._inputs(request).to(self.model.device)
        options: dict = {"max_new_tokens": request.max_tokens, "do_sample": not g.greedy}
        if not g.greedy:
            options.update(temperature=g.temperature, top_p=g.top_p)
        if g.stop:
            options.update(stop_strings=list(g.stop), tokenizer=self.tokenizer)
        if self.tokenizer.pad_token_id is None:
            options["pad_token_id"] = self.tokenizer.eos_token_id
        with self._lock, torch.no_grad():
            output = self.model.generate(**inputs, **options)
        new = output[0, inputs["input_ids"].shape[1] :]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        for stop in g.stop:
            text = text.split(stop, 1)[0]
        return Reply(text=text, tokens=int(new.shape[0]))
