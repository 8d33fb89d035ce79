"""Targets for bench/user_patterns.py: vision_dense_and_3d.py."""
import torch
import vision_dense_and_3d as m


def _x(*s):
    return torch.randn(*s)


def _boxes(n):
    cxcy = torch.rand(n, 2) * 0.6 + 0.2
    wh = torch.rand(n, 2) * 0.3 + 0.05
    return torch.cat([cxcy, wh], -1)


def _det_targets(counts, num_classes=4):
    return [{"labels": torch.randint(0, num_classes, (n,)), "boxes": _boxes(n)} for n in counts]


def _cloud(n):
    xyz = (torch.rand(n, 3) * 2 - 1) * torch.tensor([2.5, 2.5, 1.2])
    return torch.cat([xyz, torch.rand(n, 1)], 1)


def _cam_points(b, n):
    xy = torch.rand(b, n, 2) * 4 - 2
    z = torch.rand(b, n, 1) * 4 + 1
    return torch.cat([xy, z], -1)


def _extrinsics(b):
    T = torch.eye(4).repeat(b, 1, 1)
    T[:, :3, 3] = torch.tensor([0.1, -0.05, 0.2])
    return T


def _gt_depth(*s):
    d = torch.rand(*s) * 8 + 0.5
    d[torch.rand(*s) < 0.3] = 0.0
    return d


def target_interpolated_pos_embed_vi_t():
    return m.InterpolatedPosEmbedViT(), [(_x(2, 3, 16, 16),), (_x(2, 3, 24, 24),), (_x(1, 3, 18, 20), True)]


def target_shifted_window_attention_block():
    return m.ShiftedWindowAttentionBlock(), [(_x(2, 64, 16), 8, 8), (_x(1, 30, 16), 5, 6), (_x(2, 9, 16), 3, 3),
                                             (_x(2, 64, 16), 8, 8)]



def target_u_net_decoder():
    return m.UNetDecoder(), [(_x(2, 32, 4, 4), [_x(2, 16, 9, 9), _x(2, 8, 17, 17)]),
                             (_x(1, 32, 3, 5), [_x(1, 16, 6, 10), _x(1, 8, 12, 20)], (24, 32)),
                             (_x(2, 32, 4, 4), [_x(2, 16, 7, 7), _x(2, 8, 16, 16)])]


def target_feature_pyramid_neck():
    return m.FeaturePyramidNeck(), [
        ({"c2": _x(2, 8, 16, 16), "c3": _x(2, 16, 8, 8), "c4": _x(2, 32, 4, 4)},),
        ([_x(1, 8, 15, 13), _x(1, 16, 8, 7), _x(1, 32, 4, 4)], "bilinear"),
        ({"c2": _x(2, 8, 32, 32), "c3": _x(2, 16, 16, 16), "c4": _x(2, 32, 8, 8)},)]


def target_detr_set_criterion():
    return m.DETRSetCriterion(), [
        (_x(2, 6, 5), torch.rand(2, 6, 4) * 0.5 + 0.25, _det_targets([3, 1])),
        (_x(2, 6, 5), torch.rand(2, 6, 4) * 0.5 + 0.25, _det_targets([2, 0])),
        (_x(3, 8, 5), torch.rand(3, 8, 4) * 0.5 + 0.25, _det_targets([4, 2, 5]))]


def target_panoptic_post_processor():
    return m.PanopticPostProcessor(), [(_x(2, 8, 6) * 3, _x(2, 8, 16, 16) * 2),
                                       (_x(1, 10, 6) * 3, _x(1, 10, 12, 12) * 2, [(24, 20)]),
                                       (_x(2, 8, 6) * 0.1, _x(2, 8, 16, 16))]


def target_flow_warp_photometric_loss():
    return m.FlowWarpPhotometricLoss(), [(_x(2, 3, 16, 16), _x(2, 3, 16, 16), _x(2, 2, 16, 16)),
                                         (_x(1, 3, 24, 20), _x(1, 3, 24, 20), _x(1, 2, 12, 10), _x(1, 2, 12, 10)),
                                         (_x(2, 3, 16, 16), _x(2, 3, 16, 16), _x(2, 2, 16, 16), _x(2, 2, 16, 16))]


def target_depth_head_si_log():
    return m.DepthHeadSILog(), [(_x(2, 16, 8, 8), _gt_depth(2, 1, 16, 16)),
                                (_x(1, 16, 6, 10), _gt_depth(1, 1, 12, 20), 5.0),
                                (_x(2, 16, 8, 8),)]


def target_tiny_ne_rf():
    return m.TinyNeRF(), [(_x(64, 3), _x(64, 3)), (_x(100, 3), _x(100, 3), 1.0, 4.0),
                          (_x(64, 3), _x(64, 3), 2.0, 6.0, False)]


def target_point_net_set_abstraction():
    return m.PointNetSetAbstraction(), [(_x(2, 128, 3),), (_x(2, 256, 3), _x(2, 256, 3)), (_x(1, 20, 3),)]


def target_dynamic_voxel_bev_encoder():
    return m.DynamicVoxelBEVEncoder(), [([_cloud(100), _cloud(80)],), ([_cloud(200)],),
                                        ([_cloud(50), _cloud(120), _cloud(30)],)]


def target_lidar_camera_projector():
    K = [[12.0, 0.0, 12.0], [0.0, 12.0, 8.0], [0.0, 0.0, 1.0]]
    return m.LidarCameraProjector(), [(_x(2, 3, 32, 32), _cam_points(2, 64)),
                                      (_x(2, 3, 32, 32), _cam_points(2, 128), _extrinsics(2)),
                                      (_x(1, 3, 16, 24), _cam_points(1, 64), None, K)]


def target_flip_tta_segmenter():
    return m.FlipTTASegmenter(), [(_x(2, 3, 16, 16),), (_x(2, 3, 16, 16), True), (_x(1, 3, 20, 24), True, [0.75, 1.0])]


def target_sliding_window_predictor():
    return m.SlidingWindowPredictor(), [(_x(1, 3, 24, 24),), (_x(2, 3, 32, 20), 0.5), (_x(1, 3, 12, 12),)]


def target_packed_patch_encoder():
    return m.PackedPatchEncoder(), [([_x(3, 16, 16), _x(3, 12, 20)],),
                                    ([_x(3, 16, 16), _x(3, 8, 8), _x(3, 24, 16)], 0.25),
                                    ([_x(3, 40, 16)],)]


def target_multi_scale_deformable_attention():
    return m.MultiScaleDeformableAttention(), [([_x(2, 16, 8, 8), _x(2, 16, 4, 4)],),
                                               ([_x(1, 16, 10, 6), _x(1, 16, 5, 3)],),
                                               ([_x(2, 16, 8, 8), _x(2, 16, 4, 4)], _x(2, 5, 16))]


def target_heatmap_keypoint_head():
    return m.HeatmapKeypointHead(), [(_x(2, 16, 8, 8),), (_x(2, 16, 8, 8), True), (_x(1, 16, 12, 10), False, 0.5)]
