"""A loopback stand-in for the OpenAI-compatible server ``pred.py`` posts to (http://127.0.0.1:8000/v1).

Every ``POST /v1/chat/completions`` is appended to LOG (one JSON line: the request body as sent) and answered
with the scripted reply for the item named in the prompt (``this question: Qnn``) and the kind of call
(``0shot``, ``no_context``, ``cot`` first call, ``cot_ans`` second call). ``python fake_openai.py LOG``.
"""

from __future__ import annotations

import json
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

#: reply per item for single-call modes; "" makes pred.py skip the item (it is never written)
REPLIES = {
    1: "The correct answer is (A)",
    2: "**The correct answer is (B)**",
    3: "the correct answer is (c)",
    4: "The correct answer is D",
    5: "  The correct answer is (A).  \n",
    6: "",
    7: "I cannot determine the answer from the text.",
    8: "The correct answer is (B). On reflection, The correct answer is (C).",
    9: "The correct answer is (C)",
}
#: CoT first-call replies (stripped by pred.py before they fill $COT$); "" skips the item
COT_CHAINS = {
    6: "",
    2: "  Step 1: the text quotes $Q$, $DOC$ and $C_A$ literally.\nStep 2: so the answer is (B).  \n",
}
#: CoT second-call replies that differ from REPLIES
COT_ANSWERS = {7: ""}
#: replies that differ by model (its name as sent: "gpt..." or the Llama path) and call, so every
#: output file scores differently (Q06 answered by GPT in 0shot: one more row in its denominator)
BY_MODEL = {
    ("gpt", "0shot"): {1: "The correct answer is (B)", 6: "The correct answer is (B)", 9: "(A)"},
    ("meta-llama", "no_context"): {1: "The correct answer is (C)", 4: "The correct answer is (D)"},
    ("gpt", "no_context"): {2: "The correct answer is (A)", 3: "The correct answer is (C)", 5: "B"},
    ("gpt", "cot_ans"): {7: "The correct answer is (C)", 8: "The correct answer is (B)"},
}


def kind(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    if body.get("max_tokens") == 1024:
        return "cot"
    if prompt.startswith("What is the correct answer to this question:"):
        return "no_context"
    if "\n\nBased on the above, what is the single, most likely answer choice?" in prompt:
        return "cot_ans"
    return "0shot"


def reply(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    item = int(re.findall(r"this question: \s*Q(\d\d):", prompt)[-1])
    call = kind(body)
    for (model, call_of), replies in BY_MODEL.items():
        if body["model"].startswith(model) and call_of == call and item in replies:
            return replies[item]
    if call == "cot":
        return COT_CHAINS.get(item, f"Reading the text for Q{item:02d}.\nThe evidence points one way.\n")
    if call == "cot_ans":
        return COT_ANSWERS.get(item, REPLIES[item])
    return REPLIES[item]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(self.server.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(body, ensure_ascii=False) + "\n")
        answer = {
            "id": "chatcmpl-fixture",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply(body)},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", 8000), Handler)
    server.log_path = sys.argv[1]
    server.serve_forever()
