#include "config/platform_support.h"

namespace trainer {
namespace {
PlatformSupport current;
}  // namespace

void set_platform_support(const PlatformSupport& support) { current = support; }
const PlatformSupport& platform_support() { return current; }

}  // namespace trainer
