// The kernels of fused/nadam_step.h.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>

#include "fused/nadam_step.h"

namespace trainer {
namespace {

constexpr int kThreads = 256;

// Reads a skip flag of any of the types a loss scaler keeps it in.
struct SkipFlag {
  const void* data = nullptr;
  int kind = 0;  // 0: none, 1: bool, 2: float32, 3: float64
  __device__ bool set() const {
    switch (kind) {
      case 1: return *static_cast<const bool*>(data);
      case 2: return *static_cast<const float*>(data) != 0;
      case 3: return *static_cast<const double*>(data) != 0;
      default: return false;
    }
  }
};

// coefficients[i] = (gradient step, momentum step, bias correction 2); a
// skipped step writes a zero bias correction, which the element kernel reads
// as "change nothing".
__global__ void nadam_scalars_kernel(double* steps, float* mu_products, double* coefficients, const double* lr,
                                     int count, double beta1, double beta2, double momentum_decay, SkipFlag skip) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  double* c = coefficients + 3 * i;
  if (skip.set()) {
    c[0] = c[1] = c[2] = 0;
    return;
  }
  const double step = steps[i] + 1;
  steps[i] = step;
  const double mu = beta1 * (1.0 - 0.5 * pow(0.96, step * momentum_decay));
  const double mu_next = beta1 * (1.0 - 0.5 * pow(0.96, (step + 1) * momentum_decay));
  const float product = mu_products[i] * static_cast<float>(mu);
  mu_products[i] = product;
  const float product_next = product * static_cast<float>(mu_next);
  c[0] = *lr * (1.0 - mu) / (1.0 - static_cast<double>(product));
  c[1] = *lr * mu_next / (1.0 - static_cast<double>(product_next));
  c[2] = 1 - pow(beta2, step);
}

__global__ void nadam_elements_kernel(float* __restrict__ param, const float* __restrict__ grad,
                                      float* __restrict__ first, float* __restrict__ second, int64_t n,
                                      const double* __restrict__ coefficients, float beta1, float beta2,
                                      float one_minus_beta1, float one_minus_beta2, float eps, float weight_decay) {
  const double bias_correction2 = coefficients[2];
  if (bias_correction2 == 0) return;  // skipped
  const float gradient_step = static_cast<float>(coefficients[0]);
  const float momentum_step = static_cast<float>(coefficients[1]);
  const float correction = static_cast<float>(bias_correction2);
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float p = param[j];
    float g = grad[j];
    if (weight_decay != 0) g = g + p * weight_decay;
    // As LibTorch's mul_(beta).add_(g, 1 - beta) and addcmul_(g, g, 1 - beta).
    const float m = first[j] * beta1 + one_minus_beta1 * g;
    const float v = second[j] * beta2 + one_minus_beta2 * g * g;
    first[j] = m;
    second[j] = v;
    const float denom = sqrtf(v / correction) + eps;
    float updated = p - g / denom * gradient_step;
    updated = updated - m / denom * momentum_step;
    param[j] = updated;
  }
}

SkipFlag skip_flag(const torch::Tensor& skip) {
  SkipFlag flag;
  if (!skip.defined()) return flag;
  flag.data = skip.data_ptr();
  switch (skip.scalar_type()) {
    case torch::kBool: flag.kind = 1; break;
    case torch::kFloat: flag.kind = 2; break;
    case torch::kDouble: flag.kind = 3; break;
    default: TORCH_CHECK(false, "nadam_step_cuda: a skip flag of type ", skip.scalar_type());
  }
  return flag;
}

}  // namespace

bool nadam_step_cuda_compiled() { return true; }

void nadam_step_cuda(const std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads,
                     const std::vector<torch::Tensor>& firsts, const std::vector<torch::Tensor>& seconds,
                     const torch::Tensor& steps, const torch::Tensor& mu_products, const torch::Tensor& coefficients,
                     const torch::Tensor& lr, const NadamHyper& hyper, const torch::Tensor& skip) {
  const c10::cuda::CUDAGuard guard(steps.device());
  auto stream = at::cuda::getCurrentCUDAStream();
  const int count = static_cast<int>(params.size());
  nadam_scalars_kernel<<<(count + kThreads - 1) / kThreads, kThreads, 0, stream>>>(
      steps.data_ptr<double>(), mu_products.data_ptr<float>(), coefficients.data_ptr<double>(),
      lr.data_ptr<double>(), count, hyper.beta1, hyper.beta2, hyper.momentum_decay, skip_flag(skip));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  for (int i = 0; i < count; ++i) {
    const int64_t n = params[i].numel();
    const int64_t wanted = (n + kThreads - 1) / kThreads;
    const unsigned blocks = static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(wanted, 8 * sms)));
    nadam_elements_kernel<<<blocks, kThreads, 0, stream>>>(
        params[i].data_ptr<float>(), grads[i].data_ptr<float>(), firsts[i].data_ptr<float>(),
        seconds[i].data_ptr<float>(), n, coefficients.data_ptr<double>() + 3 * i, static_cast<float>(hyper.beta1),
        static_cast<float>(hyper.beta2), static_cast<float>(1.0 - hyper.beta1), static_cast<float>(1.0 - hyper.beta2),
        static_cast<float>(hyper.eps), static_cast<float>(hyper.weight_decay));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
}

}  // namespace trainer
