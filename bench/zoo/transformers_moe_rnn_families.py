"""List the transformers model families the MoE / recurrent part of the zoo must cover.

    <venv>/bin/python bench/zoo/transformers_moe_rnn_families.py
    # prints: family, model type, Auto class, why selected, core or extended (copied from whom)

The rule, fixed before any of them was recorded (bench/zoo/cases/transformers_models.py
holds the cases it gave): a family (a folder of transformers/models) whose modeling_*.py
  - defines a mixture-of-experts block: a class whose name contains MoE/Moe/Experts, or a
    top-k router (a class named *Router*, or `topk(` over router logits); or
  - is built on recurrent or state-space layers: uses nn.LSTM/GRU/RNN (or their Cell), or a
    selective-scan / SSM mixer (`selective_scan`, `ssm_state`, an `A_log` parameter).
Its model type: the text model type (a vision-language family's MoE lives in its text
model), with a causal-LM head where it has one, else its base model; else the family's own type with the
first of causal LM, seq2seq LM, base model that the Auto mappings list.
Extended (run only with run_all.py --all, to keep the part's default run short): a family
whose modular_*.py imports its MoE block, router or mixer (a class named *Experts, *MoE,
*Moe, *MoeBlock, *Router, *Mixer, *GatedDeltaNet) from another family that is a case: a
near-duplicate of code another case runs.
"""
from __future__ import annotations

import ast
import os
import re
import sys

MOE_CLASS = re.compile(r"^class \w*(MoE|Moe|Experts)\w*\b", re.M)
ROUTER = re.compile(r"^class \w*Router\w*\b|topk\([^)\n]*rout", re.M)
RNN = re.compile(r"nn\.(LSTM|GRU|RNN)(Cell)?\b")
SSM = re.compile(r"selective_scan|ssm_state|\bA_log\b")
BLOCK_CLASS = re.compile(r"(Experts|MoE|Moe|MoeBlock|Router|Mixer|GatedDeltaNet)$")
AUTOS = (("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "AutoModelForCausalLM"),
         ("MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", "AutoModelForSeq2SeqLM"),
         ("MODEL_MAPPING_NAMES", "AutoModel"))


def why_selected(folder: str) -> list[str]:
    why: set[str] = set()
    for f in os.listdir(folder):
        if f.startswith("modeling_") and f.endswith(".py"):
            with open(os.path.join(folder, f)) as fh:
                src = fh.read()
            why |= {k for k, rx in (("moe", MOE_CLASS), ("router", ROUTER), ("rnn", RNN), ("ssm", SSM)) if rx.search(src)}
    return sorted(why)


def model_type_of(family: str) -> tuple[str, str] | None:
    from transformers.models.auto import modeling_auto
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES, model_type_to_module_name

    types = [t for t in CONFIG_MAPPING_NAMES if model_type_to_module_name(t) == family]
    main = [t for t in types if model_type_to_module_name(t) == family and not t.endswith("_text")]
    for mapping, auto in AUTOS[:1] + AUTOS[2:]:
        for t in types:
            if t.endswith("_text") and t in getattr(modeling_auto, mapping):
                return t, auto
    for t in main + types:
        for mapping, auto in AUTOS:
            if t in getattr(modeling_auto, mapping):
                return t, auto
    return None


def copied_from(folder: str, cases: set[str]) -> list[str]:
    """The case families whose MoE block / router / mixer the family's modular file imports."""
    path = os.path.join(folder, f"modular_{os.path.basename(folder)}.py")
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        tree = ast.parse(fh.read())
    sources = {node.module.split(".")[0] for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module and ".modeling_" in node.module
               and any(BLOCK_CLASS.search(alias.name) for alias in node.names)}
    return sorted(sources & cases)


def main() -> None:
    import transformers

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from zoo.case import ModelCase
    from zoo.cases.transformers_models import MOE_RNN_FAMILIES, models

    cases = {c.name for c in models() if isinstance(c, ModelCase)} | {"nllb_moe"}  # nllb-moe: its model type
    root = os.path.join(os.path.dirname(transformers.__file__), "models")
    for family in sorted(os.listdir(root)):
        folder = os.path.join(root, family)
        if os.path.isdir(folder) and (why := why_selected(folder)):
            copies = copied_from(folder, cases)
            tier = f"extended:copies={','.join(copies)}" if copies else "core"
            if family not in {name for name, _, _ in MOE_RNN_FAMILIES}:
                tier = "a case before the rule"
            print(family, *(model_type_of(family) or ("-", "-")), ",".join(why), tier)


if __name__ == "__main__":
    main()
