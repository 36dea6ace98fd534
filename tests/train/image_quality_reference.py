"""PSNR and SSIM of image pairs by scikit-image, for
tests/train/image_quality_test.cpp.

Usage: python3 image_quality_reference.py OUTPUT.f64 TARGET.f64 N C H W RANGE
The files hold N images of C x H x W float64 values each; prints one line
per image: skimage's peak_signal_noise_ratio and structural_similarity
(gaussian_weights=True, sigma=1.5, use_sample_covariance=False: Wang et al.'s
SSIM, as tf.image.ssim).
"""
import sys

import numpy as np
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

output_path, target_path = sys.argv[1], sys.argv[2]
n, c, h, w = (int(v) for v in sys.argv[3:7])
value_range = float(sys.argv[7])
outputs = np.fromfile(output_path, dtype=np.float64).reshape(n, c, h, w)
targets = np.fromfile(target_path, dtype=np.float64).reshape(n, c, h, w)
for output, target in zip(outputs, targets):
    psnr = peak_signal_noise_ratio(target, output, data_range=value_range)
    ssim = structural_similarity(target, output, data_range=value_range, channel_axis=0, gaussian_weights=True,
                                 sigma=1.5, use_sample_covariance=False)
    # float(): numpy 2 writes the repr of its scalars as np.float64(...).
    print(f"{float(psnr)!r} {float(ssim)!r}")
