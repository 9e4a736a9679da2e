// The out-of-place and square tuning tables of the tile families (copy_small_batch keeps its own
// in tuning/small_batch.hpp), for files that choose among several families
// (the dispatch, the tests and the tuning sweep).
#pragma once

#include "cuda/tuning/any_size.hpp"
#include "cuda/tuning/device_class.hpp"
#include "cuda/tuning/sectors.hpp"
#include "cuda/tuning/square.hpp"
#include "cuda/tuning/tile_policy.hpp"
#include "cuda/tuning/tuned.hpp"
#include "cuda/tuning/unaligned.hpp"
