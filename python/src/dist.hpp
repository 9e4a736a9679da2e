// The extension's side of xpose.dist (python/xpose/dist.py): NCCL communicators made from a
// unique id that the package passes between processes through torch.distributed, and distributed
// in-place plans (xpose::dist::plan) executed on raw addresses. Built with NCCL
// (XPOSE_HAVE_NCCL); without it has_nccl() is false, the classes are absent and the package says
// what is missing.
#pragma once

#include <nanobind/nanobind.h>

namespace xpose_python {

/// Adds has_nccl(), and with NCCL nccl_unique_id(), NcclComm, DistPlan and dist_layout(), to `m`.
void bind_dist(nanobind::module_& m);

}  // namespace xpose_python
