// The xpose C++ API: include this one header.
#pragma once

#include "xpose/error.hpp"
#include "xpose/file.hpp"
#include "xpose/plan.hpp"
#include "xpose/route.hpp"
#include "xpose/shape.hpp"
#include "xpose/transpose.hpp"
#include "xpose/version.hpp"
