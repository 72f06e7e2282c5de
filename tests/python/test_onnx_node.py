"""ONNX (issue 6): iree-import-onnx, .onnx input to the compiler, and a fixed
CI subset of the ONNX backend node tests (shipped in the onnx pip package).

The node tests run through tests/onnx/run_node_tests.py's runner: compile
model.onnx with iree_go.compiler.compile_file (the .onnx is imported in
process), run on local-task, compare each output with the expected one at a
tolerance for its element type. The full suite, with a summary by failure
class: `python tests/onnx/run_node_tests.py` (see docs/conformance.md).
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package (which ships the node tests) is not installed")

import iree_go.compiler as ireec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "onnx"))
import run_node_tests  # noqa: E402
from conftest import vulkan_unavailable  # noqa: E402

NODE_ROOT = run_node_tests.node_test_root()

# Node tests that pass on vmvx/local-task (up to five per op family and one
# expanded function body; a few seconds in all).
CI_SUBSET = [
    "test_abs", "test_acos", "test_acos_example", "test_acosh", "test_acosh_example", "test_add",
    "test_add_bcast", "test_add_int16", "test_add_int8", "test_add_uint16", "test_affine_grid_2d",
    "test_affine_grid_2d_align_corners", "test_affine_grid_3d",
    "test_affine_grid_3d_align_corners", "test_ai_onnx_ml_binarizer", "test_and2d", "test_and3d",
    "test_and4d", "test_and_bcast3v1d", "test_and_bcast3v2d", "test_and_bcast4v2d",
    "test_and_bcast4v3d", "test_and_bcast4v4d", "test_argmax_default_axis_example",
    "test_argmax_default_axis_example_select_last_index", "test_argmax_keepdims_example",
    "test_argmax_keepdims_example_select_last_index", "test_argmax_negative_axis_keepdims_example",
    "test_argmin_default_axis_example", "test_argmin_default_axis_example_select_last_index",
    "test_argmin_keepdims_example", "test_argmin_keepdims_example_select_last_index",
    "test_argmin_negative_axis_keepdims_example", "test_asin", "test_asin_example", "test_asinh",
    "test_asinh_example", "test_atan", "test_atan_example", "test_atanh", "test_atanh_example",
    "test_attention_3d", "test_attention_3d_attn_mask", "test_attention_3d_attn_mask_expanded",
    "test_attention_3d_causal", "test_attention_3d_diff_heads_sizes",
    "test_attention_3d_diff_heads_sizes_attn_mask", "test_averagepool_1d_default",
    "test_averagepool_2d_ceil", "test_averagepool_2d_ceil_last_window_starts_on_pad",
    "test_averagepool_2d_default", "test_averagepool_2d_dilations", "test_basic_conv_with_padding",
    "test_basic_conv_without_padding", "test_batchnorm_epsilon", "test_batchnorm_example",
    "test_bitcast_2d_float32_to_int32", "test_bitcast_bool_to_uint8",
    "test_bitcast_float32_to_int32", "test_bitcast_float64_to_int64",
    "test_bitcast_int32_to_float32", "test_bitshift_left_uint16", "test_bitshift_left_uint32",
    "test_bitshift_left_uint64", "test_bitshift_left_uint8", "test_bitshift_right_uint16",
    "test_bitwise_and_i16_3d", "test_bitwise_and_i32_2d", "test_bitwise_and_ui64_bcast_3v1d",
    "test_bitwise_and_ui8_bcast_4v3d", "test_bitwise_not_2d", "test_blackmanwindow",
    "test_blackmanwindow_symmetric", "test_cast_BFLOAT16_to_FLOAT", "test_cast_DOUBLE_to_FLOAT",
    "test_cast_DOUBLE_to_FLOAT16", "test_cast_FLOAT16_to_DOUBLE", "test_cast_FLOAT16_to_FLOAT",
    "test_castlike_BFLOAT16_to_FLOAT", "test_castlike_BFLOAT16_to_FLOAT_expanded",
    "test_castlike_DOUBLE_to_FLOAT", "test_castlike_DOUBLE_to_FLOAT16",
    "test_castlike_FLOAT16_to_DOUBLE", "test_castlike_FLOAT16_to_FLOAT",
    "test_causal_conv_with_state_b1_c1_degenerate",
    "test_causal_conv_with_state_b1_c1_degenerate_expanded", "test_causal_conv_with_state_basic",
    "test_causal_conv_with_state_decode_step", "test_causal_conv_with_state_fp16",
    "test_causal_conv_with_state_kernel_size_one", "test_ceil", "test_ceil_example", "test_celu",
    "test_celu_expanded", "test_center_crop_pad_crop", "test_center_crop_pad_crop_and_pad",
    "test_center_crop_pad_crop_axes_chw", "test_center_crop_pad_crop_axes_hwc",
    "test_center_crop_pad_crop_negative_axes_hwc", "test_clip", "test_clip_default_inbounds",
    "test_clip_default_inbounds_expanded", "test_clip_default_int8_inbounds",
    "test_clip_default_int8_max", "test_clip_default_int8_min", "test_concat_1d_axis_0",
    "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0", "test_concat_2d_axis_1",
    "test_concat_2d_axis_negative_1", "test_constant", "test_constant_pad",
    "test_constantofshape_float_ones", "test_constantofshape_int_shape_zero",
    "test_constantofshape_int_zeros", "test_conv_with_autopad_same",
    "test_conv_with_strides_and_asymmetric_padding", "test_conv_with_strides_no_padding",
    "test_conv_with_strides_padding", "test_convinteger_with_padding",
    "test_convinteger_without_padding", "test_convtranspose", "test_convtranspose_1d",
    "test_convtranspose_3d", "test_convtranspose_autopad_same", "test_convtranspose_dilations",
    "test_cos", "test_cos_example", "test_cosh", "test_cosh_example", "test_cumprod_1d",
    "test_cumprod_1d_exclusive", "test_cumprod_1d_int32_exclusive", "test_cumprod_1d_reverse",
    "test_cumprod_1d_reverse_exclusive", "test_cumsum_1d", "test_cumsum_1d_exclusive",
    "test_cumsum_1d_int32_exclusive", "test_cumsum_1d_reverse", "test_cumsum_1d_reverse_exclusive",
    "test_depthtospace_crd_mode_example", "test_depthtospace_example", "test_dequantizelinear",
    "test_dequantizelinear_axis", "test_dequantizelinear_blocked", "test_dequantizelinear_e4m3fn",
    "test_dequantizelinear_e4m3fn_float16", "test_dft", "test_dft_axis", "test_dft_axis_opset19",
    "test_dft_inverse", "test_dft_inverse_opset19", "test_div", "test_div_bcast",
    "test_div_example", "test_div_int16", "test_div_int32_trunc", "test_dynamicquantizelinear",
    "test_dynamicquantizelinear_expanded", "test_dynamicquantizelinear_max_adjusted",
    "test_dynamicquantizelinear_min_adjusted", "test_edge_pad", "test_einsum_batch_diagonal",
    "test_einsum_batch_matmul", "test_einsum_inner_prod", "test_einsum_scalar", "test_einsum_sum",
    "test_elu", "test_elu_default", "test_elu_default_expanded_ver18", "test_elu_example",
    "test_elu_example_expanded_ver18", "test_equal", "test_equal_bcast", "test_equal_int16",
    "test_equal_int8", "test_equal_uint16", "test_erf", "test_exp", "test_exp_example",
    "test_expand_dim_changed", "test_expand_dim_unchanged",
    "test_eyelike_populate_off_main_diagonal", "test_eyelike_with_dtype",
    "test_eyelike_without_dtype", "test_flatten_axis0", "test_flatten_axis1", "test_flatten_axis2",
    "test_flatten_axis3", "test_flatten_default_axis",
    "test_flexattention_causal_mask_expanded_ver26",
    "test_flexattention_diff_head_sizes_expanded_ver26",
    "test_flexattention_double_expanded_ver26", "test_flexattention_expanded_ver26",
    "test_flexattention_fp16_expanded_ver26", "test_floor", "test_floor_example", "test_gather_0",
    "test_gather_1", "test_gather_2d_indices", "test_gather_elements_0", "test_gather_elements_1",
    "test_gathernd_example_float32", "test_gathernd_example_int32",
    "test_gathernd_example_int32_batch_dim1", "test_gelu_default_1",
    "test_gelu_default_1_expanded", "test_gelu_default_2", "test_gelu_tanh_1", "test_gelu_tanh_2",
    "test_gemm_all_attributes", "test_gemm_alpha", "test_gemm_beta",
    "test_gemm_default_matrix_bias", "test_gemm_default_no_bias", "test_globalaveragepool",
    "test_globalaveragepool_precomputed", "test_globalmaxpool", "test_globalmaxpool_precomputed",
    "test_greater", "test_greater_bcast", "test_greater_equal", "test_greater_equal_bcast",
    "test_greater_equal_bcast_expanded", "test_greater_equal_int16", "test_gridsample",
    "test_gridsample_aligncorners_true", "test_gridsample_bicubic",
    "test_gridsample_bicubic_align_corners_0_additional_1",
    "test_gridsample_bicubic_align_corners_1_additional_1", "test_group_normalization_epsilon",
    "test_group_normalization_epsilon_expanded", "test_group_normalization_example",
    "test_gru_batchwise", "test_gru_defaults", "test_gru_seq_length", "test_gru_with_initial_bias",
    "test_hammingwindow", "test_hammingwindow_symmetric", "test_hannwindow",
    "test_hannwindow_symmetric", "test_hardmax_axis_0", "test_hardmax_axis_1",
    "test_hardmax_axis_2", "test_hardmax_default_axis", "test_hardmax_example", "test_hardsigmoid",
    "test_hardsigmoid_default", "test_hardsigmoid_default_expanded_ver18",
    "test_hardsigmoid_example", "test_hardsigmoid_example_expanded_ver18", "test_hardswish",
    "test_hardswish_expanded", "test_identity", "test_if", "test_instancenorm_epsilon",
    "test_instancenorm_example", "test_isinf", "test_isinf_float16", "test_isinf_negative",
    "test_isinf_positive", "test_isnan", "test_isnan_float16", "test_l1normalization_axis_0",
    "test_l1normalization_axis_1", "test_l1normalization_axis_last", "test_l2normalization_axis_0",
    "test_l2normalization_axis_1", "test_layer_normalization_2d_axis0",
    "test_layer_normalization_2d_axis0_expanded",
    "test_layer_normalization_2d_axis0_expanded_ver18", "test_layer_normalization_2d_axis1",
    "test_layer_normalization_2d_axis1_expanded_ver18",
    "test_layer_normalization_2d_axis_negative_1", "test_leakyrelu", "test_leakyrelu_default",
    "test_leakyrelu_default_expanded", "test_leakyrelu_example", "test_less", "test_less_bcast",
    "test_less_equal", "test_less_equal_bcast", "test_less_equal_bcast_expanded",
    "test_less_equal_int16", "test_linear_attention_decode_step",
    "test_linear_attention_decode_step_expanded", "test_linear_attention_delta",
    "test_linear_attention_explicit_scale", "test_linear_attention_fp16",
    "test_linear_attention_gated", "test_log", "test_log_example", "test_logsoftmax_axis_0",
    "test_logsoftmax_axis_0_expanded", "test_logsoftmax_axis_0_expanded_ver18",
    "test_logsoftmax_axis_1", "test_logsoftmax_axis_1_expanded_ver18", "test_logsoftmax_axis_2",
    "test_lpnormalization_default", "test_lppool_1d_default", "test_lppool_2d_default",
    "test_lppool_2d_dilations", "test_lppool_2d_pads", "test_lppool_2d_same_lower", "test_lrn",
    "test_lrn_default", "test_lstm_batchwise", "test_lstm_defaults", "test_lstm_with_initial_bias",
    "test_lstm_with_peepholes", "test_matmul_1d_1d", "test_matmul_1d_3d", "test_matmul_2d",
    "test_matmul_3d", "test_matmul_4d", "test_matmulinteger", "test_max_example",
    "test_max_float16", "test_max_float32", "test_max_float64", "test_max_int16",
    "test_maxpool_1d_default", "test_maxpool_2d_ceil",
    "test_maxpool_2d_ceil_output_size_reduce_by_one", "test_maxpool_2d_default",
    "test_maxpool_2d_dilations", "test_mean_example", "test_mean_one_input",
    "test_mean_two_inputs", "test_min_example", "test_min_float16", "test_min_float32",
    "test_min_float64", "test_min_int16", "test_mish", "test_mish_expanded", "test_mod_broadcast",
    "test_mod_int64_fmod", "test_mod_mixed_sign_float16", "test_mod_mixed_sign_float32",
    "test_mod_mixed_sign_float64", "test_mul", "test_mul_bcast", "test_mul_example",
    "test_mul_int16", "test_mul_int8", "test_mvn", "test_mvn_expanded", "test_mvn_expanded_ver18",
    "test_neg", "test_neg_example", "test_nllloss_NC", "test_nllloss_NC_expanded",
    "test_nllloss_NCd1", "test_nllloss_NCd1_ii", "test_nllloss_NCd1_mean_weight_negative_ii",
    "test_nllloss_NCd1_weight", "test_not_2d", "test_not_3d", "test_not_4d",
    "test_onehot_negative_indices", "test_onehot_with_axis", "test_onehot_with_negative_axis",
    "test_onehot_without_axis", "test_or2d", "test_or3d", "test_or4d", "test_or_bcast3v1d",
    "test_or_bcast3v2d", "test_or_bcast4v2d", "test_or_bcast4v3d", "test_or_bcast4v4d", "test_pow",
    "test_pow_bcast_array", "test_pow_bcast_scalar", "test_pow_example",
    "test_pow_types_float32_int32", "test_prelu_broadcast", "test_prelu_broadcast_expanded",
    "test_prelu_example", "test_qlinearconv", "test_qlinearmatmul_2D_int8_float16",
    "test_qlinearmatmul_2D_int8_float32", "test_qlinearmatmul_2D_uint8_float16",
    "test_qlinearmatmul_2D_uint8_float32", "test_qlinearmatmul_3D_int8_float16",
    "test_quantizelinear", "test_quantizelinear_axis", "test_quantizelinear_blocked_asymmetric",
    "test_quantizelinear_blocked_symmetric", "test_quantizelinear_e4m3fn",
    "test_range_bfloat16_type_positive_delta", "test_range_float16_type_positive_delta",
    "test_range_float_type_positive_delta", "test_range_float_type_positive_delta_expanded",
    "test_range_int32_type_negative_delta", "test_reciprocal", "test_reciprocal_example",
    "test_reduce_l1_default_axes_keepdims_example",
    "test_reduce_l1_default_axes_keepdims_example_expanded", "test_reduce_l1_empty_set",
    "test_reduce_l1_keep_dims_example", "test_reduce_l1_negative_axes_keep_dims_example",
    "test_reduce_l2_default_axes_keepdims_example", "test_reduce_l2_do_not_keepdims_example",
    "test_adagrad_multiple", "test_adam_multiple", "test_momentum", "test_nesterov_momentum",
    "test_optional_has_element_empty_no_input_name_optional_input",
    "test_optional_has_element_empty_no_input_tensor_input", "test_optional_get_element_tensor",
    "test_ai_onnx_ml_array_feature_extractor", "test_batchnorm_example_training_mode", "test_det_nd", "test_maxunpool_export_with_output_shape", "test_nonzero_example", "test_compress_default_axis", "test_unique_not_sorted_without_axis", "test_unique_sorted_with_axis_3d", "test_nonmaxsuppression_two_batches", "test_col2im", "test_col2im_5d", "test_roialign_aligned_true",
    "test_roialign_mode_max", "test_resize_downsample_scales_cubic_antialias",
    "test_resize_downsample_sizes_linear_antialias", "test_stft", "test_stft_with_window", "test_melweightmatrix", "test_deform_conv_with_mask_bias",
    "test_deform_conv_with_multiple_offset_groups", "test_tfidfvectorizer_tf_batch_uniandbigrams_skip5",
    "test_tfidfvectorizer_tf_onlybigrams_levelempty",
    "test_nonmaxsuppression_center_point_box_format", "test_nonmaxsuppression_suppress_by_IOU_and_scores",
    "test_reduce_l2_default_axes_keepdims_example_expanded", "test_reduce_log_sum_default_expanded",
    "test_reduce_log_sum_exp_default_axes_keepdims_example_expanded",
    "test_reduce_max_do_not_keepdims_example", "test_reduce_mean_do_not_keepdims_random",
    "test_reduce_prod_do_not_keepdims_example", "test_reduce_sum_do_not_keepdims_example",
    "test_reduce_sum_square_do_not_keepdims_example_expanded", "test_reflect_pad", "test_relu",
    "test_relu_expanded_ver18", "test_reshape_allowzero_reordered", "test_reshape_extended_dims",
    "test_reshape_negative_dim", "test_reshape_negative_extended_dims", "test_reshape_one_dim",
    "test_resize_downsample_scales_cubic",
    "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
    "test_resize_downsample_scales_cubic_align_corners", "test_resize_downsample_scales_linear",
    "test_resize_downsample_scales_linear_align_corners", "test_reversesequence_batch",
    "test_reversesequence_time", "test_rms_normalization_2d_axis0",
    "test_rms_normalization_2d_axis0_expanded", "test_rms_normalization_2d_axis1",
    "test_rms_normalization_2d_axis_negative_1", "test_rms_normalization_2d_axis_negative_2",
    "test_rms_normalization_3d_axis0_epsilon", "test_rnn_seq_length", "test_rotary_embedding",
    "test_rotary_embedding_3d_input", "test_rotary_embedding_3d_input_expanded",
    "test_rotary_embedding_interleaved", "test_rotary_embedding_no_position_ids",
    "test_rotary_embedding_no_position_ids_interleaved", "test_round", "test_scan9_multi_state",
    "test_scan9_scalar", "test_scan9_sum", "test_scatter_elements_with_axis",
    "test_scatter_elements_with_duplicate_indices", "test_scatter_elements_with_negative_indices",
    "test_scatter_elements_with_reduction_max", "test_scatter_elements_with_reduction_min",
    "test_scatternd", "test_scatternd_add", "test_scatternd_max", "test_scatternd_min",
    "test_scatternd_multiply", "test_sce_NCd1_mean_weight_negative_ii",
    "test_sce_NCd1_mean_weight_negative_ii_expanded",
    "test_sce_NCd1_mean_weight_negative_ii_log_prob",
    "test_sce_NCd1d2d3_none_no_weight_negative_ii",
    "test_sce_NCd1d2d3_none_no_weight_negative_ii_log_prob",
    "test_sce_NCd1d2d3_sum_weight_high_ii", "test_selu", "test_selu_default",
    "test_selu_default_expanded_ver18", "test_selu_example", "test_selu_example_expanded_ver18",
    "test_shape", "test_shape_clip_end", "test_shape_clip_start", "test_shape_end_1",
    "test_shape_end_negative_1", "test_shrink_hard", "test_shrink_hard_expanded_ver18",
    "test_shrink_soft", "test_shrink_soft_expanded_ver18", "test_sigmoid", "test_sigmoid_example",
    "test_sign", "test_simple_rnn_batchwise", "test_simple_rnn_defaults",
    "test_simple_rnn_with_initial_bias", "test_sin", "test_sin_example", "test_sinh",
    "test_sinh_example", "test_size", "test_size_example", "test_slice", "test_slice_default_axes",
    "test_slice_default_steps", "test_slice_end_out_of_bounds", "test_slice_neg",
    "test_softmax_axis_0", "test_softmax_axis_0_expanded", "test_softmax_axis_0_expanded_ver18",
    "test_softmax_axis_1", "test_softmax_axis_1_expanded_ver18", "test_softmax_axis_2",
    "test_softplus", "test_softplus_example", "test_softplus_example_expanded_ver18",
    "test_softplus_expanded_ver18", "test_softsign", "test_softsign_example",
    "test_softsign_example_expanded_ver18", "test_softsign_expanded_ver18", "test_spacetodepth",
    "test_spacetodepth_example", "test_split_1d_uneven_split_opset18",
    "test_split_2d_uneven_split_opset18", "test_split_equal_parts_1d_opset13",
    "test_split_equal_parts_1d_opset18", "test_split_equal_parts_2d", "test_sqrt",
    "test_sqrt_example", "test_squeeze", "test_squeeze_negative_axes", "test_sub",
    "test_sub_bcast", "test_sub_example", "test_sub_int16", "test_sub_int8", "test_sum_example",
    "test_sum_one_input", "test_sum_two_inputs", "test_swish", "test_swish_expanded", "test_tan",
    "test_tan_example", "test_tanh", "test_tanh_example", "test_tensorscatter",
    "test_tensorscatter_3d", "test_tensorscatter_circular", "test_thresholdedrelu",
    "test_thresholdedrelu_default", "test_thresholdedrelu_default_expanded_ver18",
    "test_thresholdedrelu_example", "test_thresholdedrelu_example_expanded_ver18", "test_tile",
    "test_tile_precomputed", "test_top_k", "test_top_k_negative_axis", "test_top_k_same_values",
    "test_top_k_same_values_2d", "test_top_k_same_values_largest",
    "test_transpose_all_permutations_0", "test_transpose_all_permutations_1",
    "test_transpose_all_permutations_2", "test_transpose_all_permutations_3",
    "test_transpose_all_permutations_4", "test_tril", "test_tril_neg", "test_tril_one_row_neg",
    "test_tril_out_neg", "test_tril_out_pos", "test_triu", "test_triu_neg", "test_triu_one_row",
    "test_triu_out_neg_out", "test_triu_out_pos", "test_unsqueeze_axis_0", "test_unsqueeze_axis_1",
    "test_unsqueeze_axis_2", "test_unsqueeze_negative_axes", "test_unsqueeze_three_axes",
    "test_upsample_nearest", "test_where_example", "test_where_long_example", "test_wrap_pad",
    "test_xor2d", "test_xor3d", "test_xor4d", "test_xor_bcast3v1d", "test_xor_bcast3v2d",
    "test_xor_bcast4v2d", "test_xor_bcast4v3d", "test_xor_bcast4v4d",
    # Shapes from uses (run-time axes in expanded bodies), run-time Pad
    # axes, FlexAttention and its subgraphs.
    "test_reduce_l2_keep_dims_example_expanded", "test_reduce_log_sum_asc_axes_expanded",
    "test_reduce_log_sum_exp_do_not_keepdims_random_expanded", "test_hannwindow_expanded",
    "test_constant_pad_axes", "test_constant_pad_negative_axes", "test_flexattention",
    "test_flexattention_score_mod", "test_flexattention_causal_mask", "test_flexattention_gqa",
    "test_flexattention_fp16", "test_flexattention_prob_mod", "test_flexattention_relative_positional",
]


@pytest.mark.parametrize("name", CI_SUBSET)
def test_node(name):
    d = os.path.join(NODE_ROOT, name)
    if not os.path.isdir(d):
        pytest.skip(f"{name} is not in this onnx version's node tests")
    cls, detail = run_node_tests.run_one(d, "vmvx", "local-task")
    assert cls == "pass", f"{name}: {cls}: {detail}"


# A third of the CI subset on the vulkan driver, compiled for lavapipe's
# target (some use f64, which IREE's default Vulkan profile lacks; lavapipe
# in CI builds each shader with LLVM, so all of them would cost minutes). tests/onnx/run_node_tests.py --backend vulkan-spirv runs
# every node test.
@pytest.mark.parametrize("name", CI_SUBSET[::3])
def test_node_vulkan(name):
    d = os.path.join(NODE_ROOT, name)
    if not os.path.isdir(d):
        pytest.skip(f"{name} is not in this onnx version's node tests")
    if why := vulkan_unavailable():
        pytest.skip(why)
    cls, detail = run_node_tests.run_one(d, "vulkan-spirv", "vulkan", flags=("--iree-vulkan-target=llvmpipe",))
    assert cls == "pass", f"{name}: {cls}: {detail}"


# ---- iree-import-onnx -----------------------------------------------------------

# What IREE's importer prints for test_conv_with_strides_padding (gree's output,
# checked byte for byte against iree-base-compiler 3.13's iree-import-onnx).
CONV_MLIR = """module {
  func.func @test_conv_with_strides_padding(%arg0: !torch.vtensor<[1,1,7,5],f32>, %arg1: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,4,3],f32> attributes {torch.onnx_meta.ir_version = 10 : si64, torch.onnx_meta.opset_version = 22 : si64, torch.onnx_meta.producer_name = "backend-test", torch.onnx_meta.producer_version = ""} {
    %none = torch.constant.none
    %0 = torch.operator "onnx.Conv"(%arg0, %arg1) {torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,7,5],f32>, !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,4,3],f32> 
    return %0 : !torch.vtensor<[1,1,4,3],f32>
  }
}

"""


@pytest.fixture(scope="module")
def import_onnx(bin_dir):
    exe = shutil.which("iree-import-onnx", path=bin_dir)
    if exe is None:
        pytest.skip(f"iree-import-onnx is not installed in {bin_dir}")
    return exe


def test_import_onnx_matches_iree(import_onnx, tmp_path):
    model = os.path.join(NODE_ROOT, "test_conv_with_strides_padding", "model.onnx")
    out = tmp_path / "conv.mlir"
    r = subprocess.run([import_onnx, model, "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == CONV_MLIR
    r = subprocess.run([import_onnx, model], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == CONV_MLIR


def test_import_onnx_help_and_usage_errors(import_onnx):
    r = subprocess.run([import_onnx, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--opset-version" in r.stdout and "--data-dir" in r.stdout
    r = subprocess.run([import_onnx], capture_output=True, text=True)
    assert r.returncode == 2 and "the following arguments are required: input_file" in r.stderr
    r = subprocess.run([import_onnx, "/nonexistent/model.onnx"], capture_output=True, text=True)
    assert r.returncode == 1 and "could not open ONNX model '/nonexistent/model.onnx'" in r.stderr


def _small_model(graph_name="torch-jit-export", opset=17):
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3) / 4, "w")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("Relu", ["y"], ["z"])],
        graph_name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 2])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 3])],
        initializer=[w],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def test_import_names_function_after_graph_and_uses_external_data(import_onnx, tmp_path):
    m = _small_model()
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.bin", size_threshold=0)
    r = subprocess.run([import_onnx, str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert 'func.func @"torch-jit-export"(%arg0: !torch.vtensor<[4,2],f32>) -> !torch.vtensor<[4,3],f32>' in r.stdout
    assert "dense_resource<w> : tensor<2x3xf32>" in r.stdout
    assert "w: \"0x08000000" in r.stdout
    # The weights live beside the model; elsewhere they need --data-dir.
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.move(str(path), other / "m.onnx")
    r = subprocess.run([import_onnx, str(other / "m.onnx")], capture_output=True, text=True)
    assert r.returncode == 1 and "--data-dir" in r.stderr
    r = subprocess.run([import_onnx, str(other / "m.onnx"), "--data-dir", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_import_opset_version(import_onnx, tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save(_small_model(opset=14), str(path))
    r = subprocess.run([import_onnx, str(path), "--opset-version", "17"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "torch.onnx_meta.opset_version = 17 : si64" in r.stdout
    onnx.save(_small_model(opset=12), str(path))  # MatMul and Relu changed at 13/14
    r = subprocess.run([import_onnx, str(path), "--opset-version=17"], capture_output=True, text=True)
    assert r.returncode == 1 and "changed at opset" in r.stderr and "version converter" in r.stderr


# ---- .onnx input to the compiler ----------------------------------------------


def test_compile_onnx_file_and_bytes_runs(tmp_path):
    import iree_go.runtime as ireert

    path = tmp_path / "m.onnx"
    m = _small_model()
    onnx.save(m, str(path))
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
    w = np.arange(6, dtype=np.float64).reshape(2, 3) / 4
    want = np.maximum(x.astype(np.float64) @ w, 0)
    for vmfb in (ireec.compile_file(str(path), target_backends=["vmvx"]),
                 ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])):
        ctx = ireert.SystemContext(config=ireert.Config("local-task"))
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        got = np.asarray(ctx.modules.module["torch-jit-export"](x).to_host())
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_compile_bad_onnx_fails_cleanly(tmp_path, bin_dir):
    good = _small_model().SerializeToString()
    cases = {
        "truncated.onnx": (good[: len(good) // 2], "not a valid ONNX model"),
        "garbage.onnx": (b"\x0a\xff\xff\xff\xff\x0f\x01\x02", "not a valid ONNX model"),
        "empty.onnx": (b"", "empty file"),
    }
    for name, (data, want) in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(ireec.CompilerToolError) as e:
            ireec.compile_file(str(p), target_backends=["vmvx"])
        assert want in str(e.value) and name in str(e.value)
        exe = shutil.which("iree-compile", path=bin_dir)
        if exe:
            r = subprocess.run([exe, "--iree-hal-target-backends=vmvx", str(p), "-o", str(tmp_path / "x.vmfb")],
                               capture_output=True, text=True)
            assert r.returncode == 1 and want in r.stderr and "panic" not in r.stderr


def test_import_onnx_python_module(tmp_path):
    """`python -m iree_go.compiler.tools.import_onnx` (IREE's module) runs the importer in process."""
    model = os.path.join(NODE_ROOT, "test_conv_with_strides_padding", "model.onnx")
    out = tmp_path / "conv.mlir"
    r = subprocess.run([sys.executable, "-m", "iree_go.compiler.tools.import_onnx", model, "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == CONV_MLIR
    r = subprocess.run([sys.executable, "-m", "iree_go.compiler.tools.import_onnx", str(tmp_path / "missing.onnx")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "could not open ONNX model" in r.stderr


def test_det_matches_numpy_float64():
    """ONNX Det on 5×5 and 8×8 batches (random, needing row swaps, singular)
    against numpy's float64 determinant."""
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(7)
    for n in (5, 8):
        x = rng.standard_normal((4, n, n)).astype(np.float32)
        x[1, 0, :] = 0  # zero first pivot: row swaps needed
        x[1, :, 0] = rng.standard_normal(n)
        x[2, 3] = x[2, 1] * 2  # singular
        x[3] = np.eye(n, dtype=np.float32)[::-1]  # permutation matrix
        g = helper.make_graph([helper.make_node("Det", ["x"], ["d"])], "det",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, n, n])],
                              [helper.make_tensor_value_info("d", TensorProto.FLOAT, [4])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 22)])
        vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
        ctx = ireert.SystemContext(config=ireert.Config("local-task"))
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        got = np.asarray(ctx.modules.module["det"](x).to_host())
        want = np.linalg.det(x.astype(np.float64))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_nonzero_and_compress_with_declared_length():
    """NonZero and Compress convert when the model declares the result
    length K: the first K selected elements, -1 (NonZero) or 0 (Compress)
    where the input selects fewer (gree compiles static shapes)."""
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(3)
    x = (rng.random((3, 4, 5)) < 0.3).astype(np.float32) * rng.standard_normal((3, 4, 5)).astype(np.float32)
    k = int(np.count_nonzero(x))
    cond = rng.random(4) < 0.5
    kc = int(cond.sum())
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["i"]), helper.make_node("Compress", ["x", "c"], ["y"], axis=1)],
        "nz",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4, 5]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [4])],
        [helper.make_tensor_value_info("i", TensorProto.INT64, [3, k]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, kc, 5])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    f = ctx.modules.module["nz"]
    i, y = (np.asarray(r.to_host()) for r in f(x, cond))
    np.testing.assert_array_equal(i, np.stack(np.nonzero(x)))
    np.testing.assert_array_equal(y, np.compress(cond, x, axis=1))
    # Fewer selected elements than declared: the tail is -1 / 0.
    x2 = x.copy()
    x2.flat[np.flatnonzero(x2)[-1]] = 0
    c2 = cond.copy()
    c2[np.flatnonzero(c2)[-1]] = False
    i, y = (np.asarray(r.to_host()) for r in f(x2, c2))
    np.testing.assert_array_equal(i[:, :k - 1], np.stack(np.nonzero(x2)))
    assert (i[:, k - 1] == -1).all()
    np.testing.assert_array_equal(y[:, :kc - 1], np.compress(c2, x2, axis=1))
    assert (y[:, kc - 1] == 0).all()


def test_unique_without_axis_with_declared_length():
    """Unique over a flattened input (sorted and in first-occurrence order)
    against numpy.unique, with the declared number of distinct values."""
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(5)
    x = rng.integers(-20, 20, size=(6, 7)).astype(np.int32)
    vals, first, inv, counts = np.unique(x.ravel(), return_index=True, return_inverse=True, return_counts=True)
    k, n = len(vals), x.size
    for sorted_ in (1, 0):
        g = helper.make_graph(
            [helper.make_node("Unique", ["x"], ["y", "i", "v", "c"], sorted=sorted_)], "u",
            [helper.make_tensor_value_info("x", TensorProto.INT32, [6, 7])],
            [helper.make_tensor_value_info("y", TensorProto.INT32, [k]),
             helper.make_tensor_value_info("i", TensorProto.INT64, [k]),
             helper.make_tensor_value_info("v", TensorProto.INT64, [n]),
             helper.make_tensor_value_info("c", TensorProto.INT64, [k])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
        vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
        ctx = ireert.SystemContext(config=ireert.Config("local-task"))
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        y, i, v, c = (np.asarray(r.to_host()) for r in ctx.modules.module["u"](x))
        order = np.arange(k) if sorted_ else np.argsort(first, kind="stable")
        where = np.empty(k, dtype=np.int64)
        where[order] = np.arange(k)
        np.testing.assert_array_equal(y, vals[order])
        np.testing.assert_array_equal(i, first[order])
        np.testing.assert_array_equal(v, where[inv.ravel()])
        np.testing.assert_array_equal(c, counts[order])


def test_unique_with_axis_with_declared_length():
    """Unique of the columns of a matrix (sorted lexicographically) against
    numpy.unique(axis=1)."""
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(9)
    cols = rng.integers(0, 3, size=(3, 5)).astype(np.float32)
    x = cols[:, rng.integers(0, 5, size=12)]
    vals, first, inv, counts = np.unique(x, axis=1, return_index=True, return_inverse=True, return_counts=True)
    k = vals.shape[1]
    g = helper.make_graph(
        [helper.make_node("Unique", ["x"], ["y", "i", "v", "c"], axis=1)], "u",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, k]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [k]),
         helper.make_tensor_value_info("v", TensorProto.INT64, [12]),
         helper.make_tensor_value_info("c", TensorProto.INT64, [k])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    y, i, v, c = (np.asarray(r.to_host()) for r in ctx.modules.module["u"](x))
    np.testing.assert_array_equal(y, vals)
    np.testing.assert_array_equal(i, first)
    np.testing.assert_array_equal(v, inv.ravel())
    np.testing.assert_array_equal(c, counts)


def test_nonmaxsuppression_matches_onnxruntime():
    """NonMaxSuppression on 2 batches × 3 classes × 20 random boxes against
    onnxruntime, with the number of selected boxes declared from its result."""
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(11)
    xy = rng.random((2, 20, 2)).astype(np.float32) * 10
    wh = rng.random((2, 20, 2)).astype(np.float32) * 4 + 0.5
    boxes = np.concatenate([xy, xy + wh], axis=2)[..., [1, 0, 3, 2]]  # y1, x1, y2, x2
    boxes[0, 3] = boxes[0, 3][[2, 3, 0, 1]]  # flipped corners
    scores = rng.random((2, 3, 20)).astype(np.float32)
    scores[1, 2, 5] = scores[1, 2, 6]  # a tie
    consts = [numpy_helper.from_array(np.array([4], np.int64), "m"),
              numpy_helper.from_array(np.array([0.3], np.float32), "iou"),
              numpy_helper.from_array(np.array([0.2], np.float32), "st")]

    def model(k):
        g = helper.make_graph(
            [helper.make_node("NonMaxSuppression", ["b", "s", "m", "iou", "st"], ["y"])], "nms",
            [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 20, 4]),
             helper.make_tensor_value_info("s", TensorProto.FLOAT, [2, 3, 20])],
            [helper.make_tensor_value_info("y", TensorProto.INT64, [k, 3])], initializer=consts)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)], ir_version=8)

    want = ort.InferenceSession(model(None).SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"b": boxes, "s": scores})[0]
    vmfb = ireec.compile_str(model(len(want)).SerializeToString(), target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    got = np.asarray(ctx.modules.module["nms"](boxes, scores).to_host())
    assert len(want) > 6
    np.testing.assert_array_equal(got, want)


def _col2im_ref(x, image, block, strides, dil, pads):
    n, ck, _ = x.shape
    k = int(np.prod(block))
    c = ck // k
    ls = [(image[d] + pads[d] + pads[len(image) + d] - dil[d] * (block[d] - 1) - 1) // strides[d] + 1
          for d in range(len(image))]
    out = np.zeros((n, c, *image), np.float64)
    for kidx, kk in enumerate(np.ndindex(*block)):
        for lidx, ll in enumerate(np.ndindex(*ls)):
            pos = [ll[d] * strides[d] + kk[d] * dil[d] - pads[d] for d in range(len(image))]
            if all(0 <= p < image[d] for d, p in enumerate(pos)):
                out[(slice(None), slice(None), *pos)] += x[:, kidx::k, lidx][:, :c]
    return out


def test_col2im_selects_the_block_shape_at_run_time():
    """Col2Im whose static shapes fit two block shapes ([2,3] and [3,2] on a
    6×6 image with strides 2, dilations 1 and pads 1): one compiled model,
    both block shapes, against a numpy float64 reference."""
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(2)
    strides, dil, pads = [2, 2], [1, 1], [1, 1, 1, 1]
    g = helper.make_graph(
        [helper.make_node("Col2Im", ["x", "img", "blk"], ["y"], strides=strides, dilations=dil, pads=pads)], "c2i",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 18, 12]),
         helper.make_tensor_value_info("img", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("blk", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 6, 6])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    x = rng.standard_normal((2, 18, 12)).astype(np.float32)
    for block in ([2, 3], [3, 2]):
        img, blk = np.array([6, 6], np.int64), np.array(block, np.int64)
        got = np.asarray(ctx.modules.module["c2i"](x, img, blk).to_host())
        want = _col2im_ref(x.astype(np.float64), [6, 6], block, strides, dil, pads)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_roialign_matches_onnxruntime():
    """RoiAlign (avg, both coordinate modes) on random ROIs, some past the
    image's edges, against onnxruntime."""
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 12, 10)).astype(np.float32)
    lo = rng.random((7, 2)).astype(np.float32) * 12 - 2
    rois = np.concatenate([lo, lo + rng.random((7, 2)).astype(np.float32) * 8 + 0.2], axis=1)
    bidx = rng.integers(0, 2, size=7).astype(np.int64)
    for ctm in ("half_pixel", "output_half_pixel"):
        g = helper.make_graph(
            [helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], output_height=4, output_width=3, sampling_ratio=3,
                              spatial_scale=0.9, coordinate_transformation_mode=ctm)], "ra",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 12, 10]),
             helper.make_tensor_value_info("r", TensorProto.FLOAT, [7, 4]),
             helper.make_tensor_value_info("b", TensorProto.INT64, [7])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [7, 3, 4, 3])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)], ir_version=8)
        want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
            None, {"x": x, "r": rois, "b": bidx})[0]
        vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
        ctx = ireert.SystemContext(config=ireert.Config("local-task"))
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        got = np.asarray(ctx.modules.module["ra"](x, rois, bidx).to_host())
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_resize_antialias_matches_onnxruntime():
    """Antialiased linear and cubic Resize (downsampling 17×13 → 6×5 by
    sizes) against onnxruntime."""
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(8)
    x = rng.standard_normal((1, 2, 17, 13)).astype(np.float32)
    sizes = numpy_helper.from_array(np.array([1, 2, 6, 5], np.int64), "sz")
    for mode in ("linear", "cubic"):
        g = helper.make_graph(
            [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode=mode, antialias=1)], "rs",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 17, 13])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 5])], initializer=[sizes])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)
        want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
        ctx = ireert.SystemContext(config=ireert.Config("local-task"))
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        got = np.asarray(ctx.modules.module["rs"](x).to_host())
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_stft_matches_numpy_float64():
    """STFT (windowed, onesided; frame_step a run-time input) against numpy's
    float64 rfft of the frames."""
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 200, 1)).astype(np.float32)
    w = np.hanning(32).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("STFT", ["x", "st", "w"], ["y"])], "stft",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 200, 1]),
         helper.make_tensor_value_info("st", TensorProto.INT64, []),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 25, 17, 2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    got = np.asarray(ctx.modules.module["stft"](x, np.array(7, np.int64), w).to_host())
    frames = np.stack([x[:, f * 7:f * 7 + 32, 0].astype(np.float64) * w for f in range(25)], axis=1)
    spec = np.fft.rfft(frames, axis=-1)
    want = np.stack([spec.real, spec.imag], axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_deformconv_matches_onnx_reference():
    """DeformConv (2 groups, 2 offset groups, strides, dilations, pads, mask,
    bias; offsets reaching past the edges) against onnx's reference
    evaluator."""
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 4, 9, 8)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    off = (rng.standard_normal((2, 2 * 3 * 2 * 2, 4, 4)) * 2).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    mask = rng.random((2, 2 * 3 * 2, 4, 4)).astype(np.float32)
    node = helper.make_node("DeformConv", ["x", "w", "off", "b", "m"], ["y"], group=2, offset_group=2,
                            strides=[2, 2], dilations=[2, 1], pads=[1, 0, 1, 1])
    g = helper.make_graph(
        [node], "dc",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in
         (("x", x), ("w", w), ("off", off), ("b", b), ("m", mask))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6, 4, 4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 22)])
    want = ReferenceEvaluator(m).run(None, {"x": x, "w": w, "off": off, "b": b, "m": mask})[0]
    vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    got = np.asarray(ctx.modules.module["dc"](x, w, off, b, mask).to_host())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_tfidfvectorizer_matches_onnxruntime():
    """TfIdfVectorizer (uni-, bi- and trigrams, skips up to 2, TF and TFIDF)
    on random token rows against onnxruntime."""
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    import iree_go.runtime as ireert
    from onnx import TensorProto, helper

    rng = np.random.default_rng(13)
    x = rng.integers(0, 5, size=(3, 30)).astype(np.int64)
    pool = [0, 1, 3] + [0, 1, 1, 2, 4, 4, 2, 3, 3, 0] + [1, 0, 4, 2, 3, 0]  # 3 uni-, 5 bi-, 2 trigrams
    for mode in ("TF", "TFIDF"):
        node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode=mode, min_gram_length=1, max_gram_length=3,
                                max_skip_count=2, ngram_counts=[0, 3, 13], ngram_indexes=list(range(9, -1, -1)),
                                pool_int64s=pool, weights=list(np.linspace(0.5, 2, 10)))
        g = helper.make_graph([node], "tf", [helper.make_tensor_value_info("x", TensorProto.INT64, [3, 30])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 10])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)], ir_version=8)
        want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        vmfb = ireec.compile_str(m.SerializeToString(), target_backends=["vmvx"])
        ctx = ireert.SystemContext(config=ireert.Config("local-task"))
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        got = np.asarray(ctx.modules.module["tf"](x).to_host())
        assert want.sum() > 0
        np.testing.assert_allclose(got, want, rtol=1e-6)
