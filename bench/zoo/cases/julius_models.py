"""julius: audio DSP in PyTorch (resampling, low-pass and band filters, FFT convolution)."""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import sequence

PACKAGE = "julius"


def _make(cls: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import julius

        return getattr(julius, cls)(*args, **kwargs)

    return build


def models():  # type: ignore[no-untyped-def]
    audio = sequence(1, [(2, 400), (3, 600), (4, 800)], channels_first=True)
    return package_cases(PACKAGE, [
        ("resample_frac", _make("ResampleFrac", 4, 5), audio, {}),
        ("lowpass_filters", _make("LowPassFilters", [0.1, 0.25]), audio, {}),
        ("bandpass_fft", _make("BandPassFilter", 0.1, 0.3, fft=True), audio, {}),
        ("split_bands", _make("SplitBands", sample_rate=16000, n_bands=3), audio, {}),
    ])
