#include "fused/reflection_pad.h"

#include <ATen/Dispatch.h>

#include "fused/norm_chain_backend.h"
#include "fused/norm_chain_math.h"
#include "fused/reflection_pad_backend.h"

namespace trainer {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using fused::is_channels_last;
using fused::layout_of;
using fused::PlaneAddressing;

at::Tensor forward_cpu(const at::Tensor& x, const std::array<int64_t, 4>& pad) {
  const int64_t height = x.size(2), width = x.size(3);
  const int64_t padded_height = height + pad[0] + pad[1], padded_width = width + pad[2] + pad[3];
  at::Tensor y = at::empty({x.size(0), x.size(1), padded_height, padded_width}, x.options().memory_format(layout_of(x)));
  const PlaneAddressing planes{x.size(1), is_channels_last(x)};
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "reflection_pad_cpu", [&] {
    const scalar_t* xs = x.data_ptr<scalar_t>();
    scalar_t* ys = y.data_ptr<scalar_t>();
    const int64_t step = planes.step();
    for (int64_t plane = 0; plane < x.size(0) * x.size(1); ++plane) {
      const scalar_t* xp = xs + planes.base(plane, height * width);
      scalar_t* yp = ys + planes.base(plane, padded_height * padded_width);
      for (int64_t row = 0; row < padded_height; ++row)
        for (int64_t col = 0; col < padded_width; ++col)
          yp[(row * padded_width + col) * step] =
              xp[(fused::reflected_source(row, height, pad[0]) * width + fused::reflected_source(col, width, pad[2])) *
                 step];
    }
  });
  return y;
}

// The input's gradient, of `sizes` in grad's type, laid out as the input was.
at::Tensor backward_cpu(const at::Tensor& grad_output, at::IntArrayRef sizes, bool channels_last,
                        const std::array<int64_t, 4>& pad) {
  const int64_t height = sizes[2], width = sizes[3];
  const int64_t padded_width = width + pad[2] + pad[3], padded_height = height + pad[0] + pad[1];
  const auto layout = channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  const at::Tensor grad = grad_output.contiguous(layout);
  at::Tensor dx = at::empty(sizes, grad.options().memory_format(layout));
  const PlaneAddressing planes{sizes[1], channels_last};
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, grad.scalar_type(), "reflection_pad_backward_cpu", [&] {
    const scalar_t* gs = grad.data_ptr<scalar_t>();
    scalar_t* ds = dx.data_ptr<scalar_t>();
    const int64_t step = planes.step();
    int64_t rows[3], cols[3];
    for (int64_t plane = 0; plane < sizes[0] * sizes[1]; ++plane) {
      const scalar_t* gp = gs + planes.base(plane, padded_height * padded_width);
      scalar_t* dp = ds + planes.base(plane, height * width);
      for (int64_t h = 0; h < height; ++h) {
        const int nr = fused::padded_readers(h, height, pad[0], pad[1], rows);
        for (int64_t w = 0; w < width; ++w) {
          const int nc = fused::padded_readers(w, width, pad[2], pad[3], cols);
          double sum = 0;
          for (int a = 0; a < nr; ++a)
            for (int b = 0; b < nc; ++b) sum += static_cast<double>(gp[(rows[a] * padded_width + cols[b]) * step]);
          dp[(h * width + w) * step] = static_cast<scalar_t>(sum);
        }
      }
    }
  });
  return dx;
}

struct ReflectionPadFunction : torch::autograd::Function<ReflectionPadFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, std::vector<int64_t> pad) {
    const std::array<int64_t, 4> sides{pad[0], pad[1], pad[2], pad[3]};
    // The backward needs the input's sizes and layout, not its values.
    ctx->saved_data["pad"] = pad;
    ctx->saved_data["sizes"] = x.sizes().vec();
    ctx->saved_data["channels_last"] = is_channels_last(x);
    return x.is_cuda() ? fused::reflection_pad_forward_cuda(x, sides) : forward_cpu(x, sides);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto pad = ctx->saved_data["pad"].toIntVector();
    const auto sizes = ctx->saved_data["sizes"].toIntVector();
    const std::array<int64_t, 4> sides{pad[0], pad[1], pad[2], pad[3]};
    const at::Tensor dx = grads[0].is_cuda()
                              ? fused::reflection_pad_backward_cuda(grads[0], sizes, sides)
                              : backward_cpu(grads[0], sizes, ctx->saved_data["channels_last"].toBool(), sides);
    return {dx, at::Tensor()};
  }
};

}  // namespace

torch::Tensor reflection_pad(const torch::Tensor& x, const std::array<int64_t, 4>& pad) {
  const std::string unfit = reflection_pad_unfit(x, pad);
  TORCH_CHECK(unfit.empty(), "reflection_pad: ", unfit);
  const torch::Tensor input = x.contiguous(x.suggest_memory_format());
  return ReflectionPadFunction::apply(input, std::vector<int64_t>(pad.begin(), pad.end()));
}

std::string reflection_pad_unfit(const torch::Tensor& x, const std::array<int64_t, 4>& pad) {
  if (std::string unfit = fused::padded_input_unfit(x, pad); !unfit.empty()) return unfit;
  if (x.is_cuda()) {
    if (!fused::reflection_pad_cuda_compiled()) return "this build has no CUDA kernels";
    if (x.suggest_memory_format() != at::MemoryFormat::ChannelsLast) return "an NCHW tensor (LibTorch's padding keeps it)";
  } else if (!x.is_cpu()) {
    return "the kernels run on CUDA and CPU tensors only";
  }
  return "";
}

}  // namespace trainer
