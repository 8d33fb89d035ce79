"""Targets for bench/user_patterns.py: speech_and_generative.py."""
import torch
import speech_and_generative as m


def _x(*s):
    return torch.randn(*s)


def _lens(*vals):
    return torch.tensor(vals, dtype=torch.long)


def _speechy(b, n, start, end):
    wav = 0.001 * torch.randn(b, n)
    wav[:, start:end] += 0.5 * torch.sin(torch.arange(end - start) * 0.3)
    return wav


def target_annealed_vae():
    mask = torch.ones(3, 9)
    mask[1, 6:] = 0
    cfg = m.VAEConfig(kl_schedule="cyclical", free_bits=0.05)
    return m.AnnealedVAE(cfg), [(_x(2, 5, 20),), (_x(2, 5, 20), 40), (_x(3, 9, 20), 250, mask)]


def target_ema_vector_quantizer():
    torch.manual_seed(0)
    return m.EMAVectorQuantizer(), [(_x(2, 8, 6),), (_x(2, 8, 6),), (_x(3, 8, 10),), (_x(1, 8, 4),)]


def target_hinge_gan_with_r1():
    return m.HingeGANWithR1(), [(_x(2, 8, 16),), (_x(2, 8, 16), _x(2, 16)), (_x(4, 8, 16),),
                                ((_x(3, 8, 16),), {"mode": "generator"})]


def target_conditional_affine_coupling():
    mask = torch.ones(2, 1, 12)
    mask[1, :, 9:] = 0
    return m.ConditionalAffineCoupling(), [(_x(2, 8, 10), _x(2, 6, 10)), (_x(2, 8, 12), _x(2, 6, 6), mask),
                                           ((_x(3, 8, 7), _x(3, 6, 7)), {"reverse": True})]


def target_duration_length_regulator():
    durs = torch.tensor([[2, 1, 3, 0, 0], [1, 1, 2, 2, 1]])
    return m.DurationLengthRegulator().eval(), [
        (_x(2, 5, 16),),
        (_x(2, 5, 16), _lens(3, 5), durs),
        (_x(3, 7, 16), _lens(7, 4, 6), None, 1.5),
        ((_x(1, 4, 16),), {"duration_scale": 0.8, "max_len": 20}),
    ]


def target_monotonic_alignment_aligner():
    return m.MonotonicAlignmentAligner(), [
        (_x(2, 4, 16), _x(2, 8, 10), _lens(4, 3), _lens(10, 7)),
        (_x(1, 6, 16), _x(1, 8, 15), _lens(6), _lens(15)),
        (_x(3, 5, 16), _x(3, 8, 12), _lens(5, 5, 2), _lens(12, 9, 5)),
    ]


def target_pitch_energy_adaptor():
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[0, 5:] = False
    return m.PitchEnergyAdaptor(), [
        (_x(2, 6, 16),),
        (_x(2, 7, 16), mask, _x(2, 7), _x(2, 7)),
        ((_x(3, 4, 16),), {"pitch_control": 1.2, "energy_control": 0.8}),
    ]


def target_hifigan_upsample_vocoder():
    cfg = m.VocoderConfig(speaker_dim=4)
    return m.HiFiGANUpsampleVocoder(cfg), [(_x(2, 8, 10),), (_x(1, 8, 25), _x(1, 4)), (_x(3, 8, 6),)]


def target_multi_resolution_mel_loss():
    lens = _lens(800, 620)
    return m.MultiResolutionMelLoss(), [(_x(2, 800), _x(2, 800)), (_x(2, 1, 800), _x(2, 1, 800), lens),
                                        (_x(3, 1000), _x(3, 1000))]


def target_attentive_stats_pooling():
    return m.AttentiveStatsPooling(), [(_x(2, 16, 20),), (_x(3, 16, 20), _lens(20, 12, 7)),
                                       (_x(4, 16, 33), torch.tensor([1.0, 0.5, 0.75, 0.3]))]


def target_energy_vad_trimmer():
    return m.EnergyVADTrimmer(), [(_speechy(2, 640, 160, 400),), (_speechy(3, 800, 300, 700), _lens(800, 760, 720)),
                                  (_speechy(1, 480, 0, 480).unsqueeze(1),)]


def target_streaming_chunked_encoder():
    return m.StreamingChunkedEncoder(), [(_x(2, 4, 8),), (_x(2, 4, 8),), (_x(2, 10, 8),), (_x(3, 6, 8), True)]


def target_cfg_diffusion_denoiser():
    return m.CFGDiffusionDenoiser().eval(), [(_x(2, 8), 10, _x(2, 6)), (_x(2, 8), 49, _x(2, 6), 3.0),
                                             (_x(4, 8), torch.tensor([0, 5, 20, 40]), _x(4, 6), 5.0)]


def target_ddim_sampler():
    return m.DDIMSampler(eta=0.5), [(_x(2, 6),), (_x(2, 6), 5, 1.0), ((_x(3, 6), 8, 4.0), {"return_trajectory": True})]


def target_audio_token_decoder():
    ids = torch.randint(3, 40, (2, 5))
    return m.AudioTokenDecoder(), [
        (ids,),
        (ids, _x(2, 12), 6, 0.8, 10),
        (torch.randint(3, 40, (3, 30)), None, 6, 0.0),
        ((torch.randint(3, 40, (1, 3)),), {"max_new_tokens": 10, "top_k": 5, "min_new_tokens": 4}),
    ]


def target_residual_vq_codec():
    return m.ResidualVQCodec(), [(_x(2, 64),), (_x(2, 1, 70), 2), ((_x(3, 1, 128),), {"bandwidth_kbps": 16.0}),
                                 (_x(1, 50), 4)]


def target_ctc_greedy_head():
    return m.CTCGreedyHead().eval(), [(_x(2, 12, 16),), (_x(2, 12, 16), _lens(12, 8), ["ab cd", "hello"]),
                                      (_x(3, 20, 16), _lens(20, 15, 9))]


def target_random_segment_decoder():
    return m.RandomSegmentDecoder(), [(_x(2, 8, 10), _lens(10, 7)), (_x(2, 8, 10), _lens(10, 6), _x(2, 40)),
                                      (_x(3, 8, 3), _lens(3, 2, 3), _x(3, 1, 12))]
