// upsample.install() / uninstall(): our kernels as the CPU kernels of PyTorch's aten upsample
// operators, registered with c10's dispatcher (torch::Library, kind IMPL, namespace aten,
// dispatch key CPU). The dispatcher keeps every kernel registered for a key in a list and runs
// the newest; destroying our registration handles removes ours and PyTorch's run again.
#pragma once

#include <string>
#include <vector>

namespace upsample::torch_ext {

// Registers the kernels (no-op when installed). Returns false when they were already installed.
bool install_aten_kernels();
// Removes them (no-op when not installed). Returns false when they were not installed.
bool uninstall_aten_kernels();
bool aten_kernels_installed();
// "aten::upsample_bilinear2d", "aten::upsample_bilinear2d.out", ...: what install registers.
std::vector<std::string> aten_kernel_names();

}  // namespace upsample::torch_ext
