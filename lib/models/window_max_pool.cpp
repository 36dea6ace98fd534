#include "models/window_max_pool.h"

#include <type_traits>

#include "kernels/intra_op.h"
#include "kernels/window_max_kernel.h"

namespace trainer {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

PoolRows rows_of(c10::IntArrayRef sizes, int64_t window) {
  PoolRows rows;
  rows.length = sizes[2];
  rows.window = window;
  rows.outputs = rows.length / window;
  return rows;
}

// The loops' element type for a tensor's dtype: float32 as float, bf16 as
// its 16 bits. Calls act(T{}) with it.
template <typename Act>
void with_element_type(torch::ScalarType dtype, Act&& act) {
  if (dtype == torch::kBFloat16)
    act(uint16_t{});
  else
    act(float{});
}

template <typename T>
T* elements(const torch::Tensor& t) {
  if constexpr (std::is_same_v<T, float>)
    return t.data_ptr<float>();
  else
    return reinterpret_cast<uint16_t*>(t.data_ptr<at::BFloat16>());
}

// Whether the loops take this dtype.
bool loops_take(torch::ScalarType dtype) { return dtype == torch::kFloat || dtype == torch::kBFloat16; }

// Rows a thread takes at a time: LibTorch's grain, in elements.
int64_t grain(const PoolRows& rows) { return std::max<int64_t>(1, at::internal::GRAIN_SIZE / std::max<int64_t>(1, rows.length)); }

torch::Tensor pool(const torch::Tensor& x, int64_t window, torch::Tensor* offsets) {
  const PoolRows rows = rows_of(x.sizes(), window);
  const std::vector<int64_t> sizes{x.size(0), x.size(1), rows.outputs};
  torch::Tensor y = torch::empty(sizes, x.options());
  uint8_t* at = nullptr;
  if (offsets) {
    *offsets = torch::empty(sizes, x.options().dtype(torch::kUInt8));
    at = offsets->data_ptr<uint8_t>();
  }
  with_element_type(x.scalar_type(), [&](auto type) {
    using T = decltype(type);
    const T* in = elements<T>(x);
    T* out = elements<T>(y);
    intra_op_chunks(0, x.size(0) * x.size(1), grain(rows),
                    [&](int64_t first, int64_t last) { window_max_1d(in, out, at, rows, first, last); });
  });
  return y;
}

struct WindowMaxPool1dFunction : torch::autograd::Function<WindowMaxPool1dFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, int64_t window) {
    torch::Tensor offsets;
    torch::Tensor y = pool(x, window, &offsets);
    ctx->save_for_backward({offsets});
    ctx->saved_data["input_sizes"] = x.sizes().vec();
    ctx->saved_data["window"] = window;
    return y;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const torch::Tensor offsets = ctx->get_saved_variables()[0];
    const auto sizes = ctx->saved_data["input_sizes"].toIntVector();
    const PoolRows rows = rows_of(sizes, ctx->saved_data["window"].toInt());
    const torch::Tensor grad_y = grads[0].contiguous();
    torch::Tensor grad_x = torch::empty(sizes, grad_y.options());
    const uint8_t* at = offsets.data_ptr<uint8_t>();
    with_element_type(grad_y.scalar_type(), [&](auto type) {
      using T = decltype(type);
      const T* g = elements<T>(grad_y);
      T* gx = elements<T>(grad_x);
      intra_op_chunks(0, sizes[0] * sizes[1], grain(rows),
                      [&](int64_t first, int64_t last) { window_max_1d_backward(g, at, gx, rows, first, last); });
    });
    return {grad_x, torch::Tensor()};
  }
};

// LibTorch's forward, with its indices; the backward writes each input once.
struct WindowMaxPool2dFunction : torch::autograd::Function<WindowMaxPool2dFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, int64_t window_h, int64_t window_w) {
    auto [y, indices] = torch::max_pool2d_with_indices(x, {window_h, window_w}, {window_h, window_w});
    ctx->save_for_backward({indices});
    ctx->saved_data["input_sizes"] = x.sizes().vec();
    ctx->saved_data["window_h"] = window_h;
    ctx->saved_data["window_w"] = window_w;
    return y;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto sizes = ctx->saved_data["input_sizes"].toIntVector();
    // The indices' layout is the forward's (its input's); the gradient and
    // the result follow it. With one channel both layouts are the same bytes.
    const torch::Tensor saved = ctx->get_saved_variables()[0];  // unpacks (and checks) the saved tensor
    const auto format = saved.suggest_memory_format();
    const torch::Tensor indices = saved.contiguous(format);
    const torch::Tensor grad_y = grads[0].contiguous(format);
    torch::Tensor grad_x = torch::empty(sizes, grad_y.options().memory_format(format));
    PoolPlanes planes;
    planes.batch = sizes[0];
    planes.channels = sizes[1];
    planes.height = sizes[2];
    planes.width = sizes[3];
    planes.window_h = ctx->saved_data["window_h"].toInt();
    planes.window_w = ctx->saved_data["window_w"].toInt();
    planes.out_h = indices.size(2);
    planes.out_w = indices.size(3);
    planes.channels_last = format == torch::MemoryFormat::ChannelsLast;
    const int64_t* index = indices.data_ptr<int64_t>();
    const int64_t row_elements = planes.width * (planes.channels_last ? planes.channels : 1);
    with_element_type(grad_y.scalar_type(), [&](auto type) {
      using T = decltype(type);
      const T* g = elements<T>(grad_y);
      T* gx = elements<T>(grad_x);
      intra_op_chunks(0, window_max_2d_rows(planes),
                      std::max<int64_t>(1, at::internal::GRAIN_SIZE / std::max<int64_t>(1, row_elements)),
                      [&](int64_t first, int64_t last) { window_max_2d_backward(g, index, gx, planes, first, last); });
    });
    return {grad_x, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool tiles_without_padding(int64_t window, int64_t stride, int64_t padding) {
  return stride == window && padding == 0;
}

WindowMaxPool1dImpl::WindowMaxPool1dImpl(int64_t window) : window_(window) {
  TORCH_CHECK(window >= 1 && window <= kWindowMaxPool1dWidest, "WindowMaxPool1d: window ", window, " is not in 1..",
              kWindowMaxPool1dWidest);
}

torch::Tensor WindowMaxPool1dImpl::forward(const torch::Tensor& x) {
  const bool fits = x.device().is_cpu() && loops_take(x.scalar_type()) && x.dim() == 3 && x.is_contiguous() &&
                    x.size(2) >= window_;
  if (!fits) return torch::max_pool1d(x, window_);
  if (torch::GradMode::is_enabled() && x.requires_grad()) return WindowMaxPool1dFunction::apply(x, window_);
  return pool(x, window_, nullptr);
}

void WindowMaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "trainer::WindowMaxPool1d(window=" << window_ << ")";
}

WindowMaxPool2dImpl::WindowMaxPool2dImpl(int64_t window_h, int64_t window_w)
    : window_h_(window_h), window_w_(window_w) {}

torch::Tensor WindowMaxPool2dImpl::forward(const torch::Tensor& x) {
  const bool fits = x.device().is_cpu() && loops_take(x.scalar_type()) && x.dim() == 4 &&
                    x.size(2) >= window_h_ && x.size(3) >= window_w_ && torch::GradMode::is_enabled() &&
                    x.requires_grad();
  // Without a backward to come (validation, or another dtype or device) it
  // is LibTorch's pool.
  if (!fits) return torch::max_pool2d(x, {window_h_, window_w_}, {window_h_, window_w_});
  return WindowMaxPool2dFunction::apply(x, window_h_, window_w_);
}

void WindowMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "trainer::WindowMaxPool2d(window=[" << window_h_ << ", " << window_w_ << "])";
}

}  // namespace trainer
