"""Everyday user patterns, run through Dynamo and the linter: what breaks, what is flagged.

    .venv/bin/python bench/user_patterns.py            # every part, a table at the end
    .venv/bin/python bench/user_patterns.py everyday   # one part
    .venv/bin/python bench/user_patterns.py --misses   # also list what was not flagged

Each part of bench/user_patterns/ is model code of the kind users write (not reduced from
any package the zoo records) with a targets file; `compilelint verify --dynamic` compiles
each target in the default mode, with `fullgraph=True` and with `dynamic=True` (backend
eager, CPU) and matches Dynamo's breaks to the static findings. The parts were written
blind, before the rules that now cover them (session 12): `everyday` (tensors in Python
builtins, text, storages, properties), `python_features` (dataclasses, context variables,
globals, containers, generators), `package_user` (a user model calling a helper package:
calls followed across files, recompiles from module state), `training_and_inference` (a
compiled training step, decoding loops, caches, masks, post-processing). Three more were
written blind in session 13, after that session's rules and before running the linter on
them: `layers_and_losses` (losses, metrics, augmentation, autocast, checkpointing, hooks,
custom autograd functions), `serving_and_control` (device checks, timing, try/except,
kwargs, dispatch by name, sampling, string-keyed caches) and `routing_and_sequences`
(mixture-of-experts routing, scatter and segment reductions, padding masks, decoding
bookkeeping, bucketing). An eighth, `detection_and_sampling` (box decoding, NMS, anchors,
detection metrics, diffusion schedulers and sampling loops, audio front ends, segmentation
heads, policy heads, a gradient penalty), and a ninth, `graphs_points_and_tables` (message
passing, k-nearest-neighbour and radius graphs, farthest point sampling, voxels, tabular
embeddings and normalisation, time-series features, recommender losses) and a tenth,
`generation_and_efficiency` (repetition penalty, top-p, stop tokens, positional caches,
adapters by name, fake quantisation, pruning, stochastic depth, spectral norm, EMA weights,
patch embedding, token merging), were written blind in session 14. Four more were written in
session 15 by helpers that had not read the linter's rules or run it: `science_and_control`
(physics-informed losses, ODE and Hamiltonian integrators, a Kalman step, Langevin and
Metropolis samplers, policy heads, returns and PPO losses, controllers, a contact simulator,
running normalisation) and `media_and_recommendation` (log-mel front ends, CTC decoding,
SpecAugment, in-model crops and flips, padding to a multiple, image pyramids, frame
sampling, character encoders, embedding bags, hashed features, two-tower retrieval,
re-ranking, mixup and cutmix), `language_and_structure` (CRF forward and Viterbi, beam
searches, QA span extraction, BIO decoding, constrained decoding, n-gram blocking, dynamic
truncation, sequence packing, label smoothing, passage fusion, prefix caches, relative
position buckets, a pointer-generator) and `training_machinery` (loss wrappers with
schedules, distillation, MoCo queues, memory banks, curricula, selective checkpointing,
metric tracking, focal and contrastive losses, loss scaling, stochastic depth schedules,
hard-example mining, auxiliary-loss collectors, forward hooks, early exits, NaN guards).
Three more were written the same way in session 16: `time_series_and_forecasting` (sliding
windows, reversible instance normalisation, decomposition, DeepAR sampling, quantile losses,
imputation, lag and calendar features, N-BEATS, PatchTST, a causal TCN, seq2seq with teacher
forcing, a Kalman smoother, dynamic time warping, early exits), `vision_dense_and_3d` (ViT
position embeddings resized per input, shifted-window attention, UNet and FPN necks, a DETR
criterion, panoptic post-processing, flow warping, a depth loss on valid pixels, NeRF
sampling, PointNet++ grouping, voxelisation, camera projection, test-time augmentation,
sliding-window inference, packed patches, deformable sampling, keypoint decoding) and
`llm_serving_internals` (static, paged and sink KV caches, rotary scaling, sliding-window
and grouped-query attention, speculative decoding, logits processors, multi-LoRA by name,
int4 dequantisation, packed variable-length batches, prefix caching, stop sequences, beam
bookkeeping, expert dispatch, byte fallback). Two more in session 17: `speech_and_generative`
(VAEs with KL annealing, a VQ codebook with EMA and dead-code reset, a hinge GAN with an R1
penalty, flow coupling, duration predictors and length regulators, monotonic alignment
search, variance adaptors, a HiFi-GAN-like vocoder, multi-resolution mel losses, speaker
pooling, VAD trimming, a streaming encoder, a CFG denoiser, DDIM sampling, an audio-token
decoder, residual VQ, CTC) and `multimodal_and_retrieval` (CLIP-style dual encoders and
losses, gated cross-attention, a Q-Former, region grounding, a CTC recogniser, a VQA head,
re-ranking, a MoCo memory bank, chunked MIPS, product quantisation, ColBERT scoring, a
perceiver resampler, beam-search captioning, modality dropout and experts, AV sync search,
scene-graph relations).

Columns, summed over each part's targets: break sites Dynamo reported that no finding
claiming that mode covers (a site is a line, with the modes it broke in), findings Dynamo
confirmed, findings it did not confirm on a line it ran (not reproduced), recompiles no
finding predicted, and targets that failed to compile or run (a compile error the linter
does not predict is counted there, not as a site).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "user_patterns"
PARTS = ("everyday", "python_features", "package_user", "training_and_inference", "layers_and_losses", "serving_and_control",
         "routing_and_sequences", "detection_and_sampling", "graphs_points_and_tables", "generation_and_efficiency",
         "science_and_control", "media_and_recommendation", "language_and_structure", "training_machinery",
         "time_series_and_forecasting", "vision_dense_and_3d", "llm_serving_internals", "speech_and_generative",
         "multimodal_and_retrieval")
COLUMNS = ("break sites missed", "findings confirmed", "not reproduced", "recompiles not predicted", "failed targets")


def verify(part: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "verify.json"
        command = [sys.executable, "-m", "compilelint", "verify", "--targets", f"{part}_targets.py", "--dynamic",
                   "--format", "json", "-o", str(out), "-q", "."]  # fmt: skip
        subprocess.run(command, cwd=HERE, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.loads(out.read_text())


def misses(part: str, report: dict[str, Any]) -> list[str]:
    lines = []
    for target in report["targets"]:
        for missed in target["missed"]:
            lines.append(f"{part}: {target['target']} {missed['path']}:{missed['line']} {missed['gb_id']} ({', '.join(missed['modes'])})")
        lines += [f"{part}: {target['target']} recompile not predicted: {reason}" for reason in target["recompiles"]["missed"]]
        if target["status"] != "ok":
            lines.append(f"{part}: {target['target']} {target['status']}: {target['detail'][:120]}")
    return lines


def tally(report: dict[str, Any]) -> dict[str, int]:
    counts = dict.fromkeys(COLUMNS, 0)
    for target in report["targets"]:
        counts["break sites missed"] += len(target["missed"])
        for finding in target["findings"]:
            counts["findings confirmed"] += finding["status"] == "confirmed"
            counts["not reproduced"] += finding["status"] == "not-reproduced"
        counts["recompiles not predicted"] += len(target["recompiles"]["missed"])
        counts["failed targets"] += target["status"] != "ok" and not target.get("error_predicted")
    return counts


def main(parts: list[str], list_misses: bool) -> None:
    reports = {part: verify(part) for part in parts}
    rows = {part: tally(report) for part, report in reports.items()}
    print("| part | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    for part, row in rows.items():
        print(f"| {part} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    if list_misses:
        print()
        for part, report in reports.items():
            print("\n".join(misses(part, report)))


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--misses"]
    main(arguments or list(PARTS), "--misses" in sys.argv[1:])
