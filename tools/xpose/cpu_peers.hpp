// CPU peers measured in the same run: OpenBLAS cblas_?imatcopy (in place; it allocates a full
// copy internally) and cblas_?omatcopy (out of place), row-major with transposition, for fp32
// and fp64 cases. Available when the tool is built with OpenBLAS (XPOSE_HAVE_OPENBLAS).
#pragma once

#include "bench_types.hpp"
#include "host_data.hpp"

namespace xpose_cli {

/// Times and verifies the peer for `c` like xpose itself; the result has an empty name when
/// the case has no peer (other element sizes, batches, or no OpenBLAS in this build).
peer_result run_cpu_peer(const bench_case& c, const reference_pair& reference,
                         const bench_settings& settings);

}  // namespace xpose_cli
