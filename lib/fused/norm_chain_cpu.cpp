// The fused norm chain on the CPU: plain loops over each (sample, channel)
// plane, statistics and gradient sums in double, in either layout (a
// plane's elements one apart in NCHW, a row of channels apart in NHWC). It
// is the reference the tests hold against LibTorch's unfused layers, with
// the element arithmetic of the CUDA kernels (norm_chain_math.h).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <mutex>

#include "fused/norm_chain_backend.h"
#include "fused/norm_chain_math.h"

namespace trainer::fused {
namespace {

struct Plane : PlaneAddressing {
  int64_t height, width, top, bottom, left, right;
  int64_t padded_height() const { return height + top + bottom; }
  int64_t padded_width() const { return width + left + right; }
};

Plane plane_of(const at::Tensor& x, const NormChainOptions& options) {
  return {{x.size(1), is_channels_last(x)}, x.size(2),      x.size(3),     options.pad[0],
          options.pad[1],                    options.pad[2], options.pad[3]};
}

// The per-element tail after normalising: ReLU, then dropout.
struct Tail {
  bool relu;
  float keep;     // 1: no dropout
  uint64_t seed, offset;
  // The value passed on, given the normalised one and its element's index.
  float apply(float v, int64_t index) const {
    if (relu) v = v > 0 ? v : 0;
    if (keep < 1) v = dropout_keeps(philox_word(seed, static_cast<uint64_t>(index), offset), keep) ? v * (1 / keep) : 0;
    return v;
  }
  // The gradient of the normalised value, given the output's.
  float gradient(float g, float v, int64_t index) const {
    if (keep < 1) g = dropout_keeps(philox_word(seed, static_cast<uint64_t>(index), offset), keep) ? g * (1 / keep) : 0;
    if (relu && !(v > 0)) g = 0;
    return g;
  }
};

Tail tail_of(const NormChainOptions& options, double dropout, const DropoutDraws& draws) {
  return {options.relu, static_cast<float>(1 - dropout), draws.words[0], draws.words[1]};
}

float channel_value(const at::Tensor& t, int64_t c, float otherwise) {
  return t.defined() ? t.data_ptr<float>()[c] : otherwise;
}

}  // namespace

ChainForward chain_forward_cpu(const at::Tensor& input, const at::Tensor& gamma, const at::Tensor& beta,
                               const NormChainOptions& options, double dropout, DropoutDraws& draws) {
  const at::Tensor x = input.contiguous(layout_of(input));
  if (dropout > 0) {
    auto generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    draws.words = {at::check_generator<at::CPUGeneratorImpl>(generator)->random64(), 0, 0, 0};
  }
  const Plane p = plane_of(x, options);
  const int64_t channels = x.size(1), planes = x.size(0) * channels, elements = p.height * p.width;
  ChainForward out{at::empty({x.size(0), channels, p.padded_height(), p.padded_width()},
                             x.options().memory_format(layout_of(x))),
                   at::empty({planes}, x.options().dtype(at::kFloat)), at::empty({planes}, x.options().dtype(at::kFloat))};
  const Tail tail = tail_of(options, dropout, draws);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "norm_chain_forward_cpu", [&] {
    const scalar_t* xs = x.data_ptr<scalar_t>();
    scalar_t* ys = out.output.data_ptr<scalar_t>();
    at::parallel_for(0, planes, 1, [&](int64_t first, int64_t last) {
      for (int64_t plane = first; plane < last; ++plane) {
        const scalar_t* xp = xs + p.base(plane, elements);
        const int64_t step = p.step();
        double sum = 0;
        for (int64_t i = 0; i < elements; ++i) sum += static_cast<float>(xp[i * step]);
        const double mean = sum / static_cast<double>(elements);
        double squares = 0;
        for (int64_t i = 0; i < elements; ++i) {
          const double d = static_cast<float>(xp[i * step]) - mean;
          squares += d * d;
        }
        const float m = static_cast<float>(mean);
        const float rstd = static_cast<float>(1 / std::sqrt(squares / static_cast<double>(elements) + options.eps));
        out.mean.data_ptr<float>()[plane] = m;
        out.rstd.data_ptr<float>()[plane] = rstd;
        const int64_t c = plane % channels;
        const float g = channel_value(gamma, c, 1), b = channel_value(beta, c, 0);
        scalar_t* yp = ys + p.base(plane, p.padded_height() * p.padded_width());
        for (int64_t row = 0; row < p.padded_height(); ++row) {
          const int64_t h = reflected_source(row, p.height, p.top);
          for (int64_t col = 0; col < p.padded_width(); ++col) {
            const int64_t source = h * p.width + reflected_source(col, p.width, p.left);
            const float v = normalised(static_cast<float>(xp[source * step]), m, rstd, g, b);
            yp[(row * p.padded_width() + col) * step] =
                static_cast<scalar_t>(tail.apply(v, plane * elements + source));
          }
        }
      }
    });
  });
  return out;
}

ChainBackward chain_backward_cpu(const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& gamma,
                                 const at::Tensor& beta, const ChainForward& saved, const NormChainOptions& options,
                                 double dropout, const DropoutDraws& draws) {
  const at::Tensor x = input.contiguous(layout_of(input));
  const at::Tensor grad = grad_output.to(x.scalar_type()).contiguous(layout_of(x));
  const Plane p = plane_of(x, options);
  const int64_t channels = x.size(1), planes = x.size(0) * channels, elements = p.height * p.width;
  ChainBackward out{at::empty_like(x, x.options(), layout_of(x)), at::empty({x.size(0), channels}, x.options().dtype(at::kFloat)),
                    at::empty({x.size(0), channels}, x.options().dtype(at::kFloat))};
  const Tail tail = tail_of(options, dropout, draws);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "norm_chain_backward_cpu", [&] {
    const scalar_t* xs = x.data_ptr<scalar_t>();
    const scalar_t* gs = grad.data_ptr<scalar_t>();
    scalar_t* dxs = out.grad_input.data_ptr<scalar_t>();
    at::parallel_for(0, planes, 1, [&](int64_t first, int64_t last) {
      std::vector<float> gy(static_cast<size_t>(elements)), xhat(static_cast<size_t>(elements));
      for (int64_t plane = first; plane < last; ++plane) {
        const int64_t step = p.step();
        const scalar_t* xp = xs + p.base(plane, elements);
        const scalar_t* gp = gs + p.base(plane, p.padded_height() * p.padded_width());
        const float m = saved.mean.data_ptr<float>()[plane], rstd = saved.rstd.data_ptr<float>()[plane];
        const int64_t c = plane % channels;
        const float g = channel_value(gamma, c, 1), b = channel_value(beta, c, 0);
        double sum_gy = 0, sum_gy_xhat = 0;
        int64_t rows[3], cols[3];
        for (int64_t h = 0; h < p.height; ++h) {
          const int nr = padded_readers(h, p.height, p.top, p.bottom, rows);
          for (int64_t w = 0; w < p.width; ++w) {
            const int nc = padded_readers(w, p.width, p.left, p.right, cols);
            float folded = 0;
            for (int i = 0; i < nr; ++i)
              for (int j = 0; j < nc; ++j)
                folded += static_cast<float>(gp[(rows[i] * p.padded_width() + cols[j]) * step]);
            const int64_t e = h * p.width + w;
            const float xv = static_cast<float>(xp[e * step]);
            const float v = normalised(xv, m, rstd, g, b);
            gy[e] = tail.gradient(folded, v, plane * elements + e);
            xhat[e] = (xv - m) * rstd;
            sum_gy += gy[e];
            sum_gy_xhat += static_cast<double>(gy[e]) * xhat[e];
          }
        }
        out.grad_gamma_parts.data_ptr<float>()[plane] = static_cast<float>(sum_gy_xhat);
        out.grad_beta_parts.data_ptr<float>()[plane] = static_cast<float>(sum_gy);
        const double n = static_cast<double>(elements);
        const float mean_gy = static_cast<float>(sum_gy / n), mean_gy_xhat = static_cast<float>(sum_gy_xhat / n);
        scalar_t* dxp = dxs + p.base(plane, elements);
        for (int64_t e = 0; e < elements; ++e)
          dxp[e * step] = static_cast<scalar_t>(g * rstd * (gy[e] - mean_gy - xhat[e] * mean_gy_xhat));
      }
    });
  });
  return out;
}

}  // namespace trainer::fused
