// The NIC's side of every provider format (see nic_wqe.hpp): include this one header.
#pragma once

#include "tests/support/nic_model_formats/bnxt_nic.hpp"
#include "tests/support/nic_model_formats/ionic_nic.hpp"
#include "tests/support/nic_model_formats/mlx5_nic.hpp"
#include "tests/support/nic_model_formats/nic_wqe.hpp"
