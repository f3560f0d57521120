"""Renders the differential cases of ChatTemplateDifferentialTest with Python's Jinja2, the way transformers
renders chat templates (apply_chat_template): an ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks
and the loopcontrols extension; tojson is json.dumps (ensure_ascii=False); raise_exception and strftime_now are
globals; the tokenizer's special tokens and the caller's extra variables are template variables.

    python3 render_with_jinja2.py ../../../../../../shared > cases.json   (from this folder; Jinja2 3.1)

The Qwen3 template is read from the shared fixtures (qwen3-tokenizer/tokenizer_config.json); the other three are
the .jinja files beside this script, written for this project in the style of Llama-3 and Qwen2 templates.
"""
import json
import sys
from datetime import datetime
from pathlib import Path

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = Path(__file__).resolve().parent


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env


def sys_(c):
    return {"role": "system", "content": c}


def user(c):
    return {"role": "user", "content": c}


def asst(c):
    return {"role": "assistant", "content": c}


LONG = []
for i in range(12):
    LONG.append(user(f"turn {i}: board\n#..A\n.{{{i}}}.G\nwhat next?"))
    LONG.append(asst(f"<think>\nstep {i}: go {'UDLR'[i % 4]}\n</think>\n\nActions: {'UDLR'[i % 4] * (i + 1)}"))
LONG.append(user("final turn {{ messages }} {% if true %}x{% endif %}"))

CONVERSATIONS = {
    "double-braces-latex": [user("Compute $\\frac{{a}}{{b}}$ where x^{{2}} and {{ 7*7 }}")],
    "block-and-comment-markers": [
        sys_("Rules: {% raw %} stays, {% endraw %} too; {# not a comment #} and %} or #} alone."),
        user("{% for x in y %}{{ x }}{% endfor %} {%- set a = 1 -%} {{- a -}}")],
    "backslashes": [user("C:\\temp\\new\\table.txt and \\n \\t \\\\ \\u00e9 '\\'' \"quoted\"")],
    "latex-display": [user("\\[ \\int_0^1 x\\,dx = \\tfrac12 \\]\n\\( \\sqrt[3]{x}^2 \\) and \\boxed{\\dfrac{1+\\sqrt{3}}{2}}")],
    "unicode": [sys_("Réponds en français — s'il te plaît."), user("数学: 2×3 = ? ✓ 🚀 \u00a0nbsp\u200bzero-width")],
    "whitespace": [sys_("  padded system  \n"), user("\n\n  leading and trailing  \n\t"), asst("  spaced answer \n"),
                   user("   ")],
    "empty-system": [sys_(""), user("Hi")],
    "empty-user": [user("")],
    "python-program": [
        user("Write a program."),
        asst("```python\nd = {'a': {'b': 1}}\nprint(f\"{d['a']}\" + f'{{literal}}')\ns = '{%' + '%}'\n```"),
        user("It printed {'b': 1}{literal}. Fix `{{ x }}` in:\n```\n{% if %}\n```")],
    "assistant-with-think": [user("Q1"), asst("<think>\nreasoning {{here}}\n</think>\n\nA1"), user("Q2")],
    "assistant-without-think": [sys_("SYS"), user("Q1"), asst("A1 without thinking"), user("Q2"), asst("A2")],
    "final-assistant-with-think": [user("Q"), asst("<think>\nlast {%thought%}\n</think>\n\nfinal {{answer}}")],
    "long-history": LONG,
}


def main():
    shared = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared")
    qwen3_config = json.loads((shared / "fixtures/qwen3-tokenizer/tokenizer_config.json").read_text())
    templates = {
        "qwen3": (qwen3_config["chat_template"], {"eos_token": qwen3_config["eos_token"],
                                                  "pad_token": qwen3_config["pad_token"]}),
        "llama3-style": ((HERE / "llama3-style.jinja").read_text(), {"bos_token": "<|begin_of_text|>",
                                                                     "eos_token": "<|eot_id|>"}),
        "qwen2-style": ((HERE / "qwen2-style.jinja").read_text(), {"eos_token": "<|im_end|>"}),
        "tojson-style": ((HERE / "tojson-style.jinja").read_text(), {}),
    }
    env = environment()
    cases = []
    for tname, (source, tokens) in templates.items():
        compiled = env.from_string(source)
        thinking = [None, True, False] if tname == "qwen3" else [None]
        for cname, messages in CONVERSATIONS.items():
            for gen in (True, False):
                for think in thinking:
                    extra = {} if think is None else {"enable_thinking": think}
                    text = compiled.render(messages=messages, add_generation_prompt=gen, **tokens, **extra)
                    cases.append({"template": tname, "conversation": cname, "addGenerationPrompt": gen,
                                  "extra": extra, "messages": messages, "expected": text})
    json.dump({"jinja2": jinja2.__version__, "specialTokens": {k: v[1] for k, v in templates.items()},
               "cases": cases}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
