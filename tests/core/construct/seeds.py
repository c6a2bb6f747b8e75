"""The seed record the construction tests hand to the rules: a GSM8K question, its worked
solution and its answer, as the importer stores them."""

from __future__ import annotations


def gsm8k_seed(question: str, solution: str, answer: str) -> dict[str, str]:
    return {"question": question, "solution": solution, "answer_text": answer, "source": "gsm8k"}
