// registers.glsl: how many keys a thread of a kernel holds in registers,
// 2^REGISTER_LOG. It is a specialization constant (id 16, set by vk_sorter.c's
// create_pipeline from the tuning), so each kernel is one module for every
// count: the loops over a thread's keys are [[unroll]] loops with this bound,
// which the driver unrolls once the constant is known, and every register
// index is a constant again. The counts the tuning picks are 1..4
// (BITONIC_GPU_MAX_REGISTER_LOG in src/core/tuning.h).
layout(constant_id = 16) const uint REGISTER_LOG = 1u;
const uint REGISTERS = 1u << REGISTER_LOG;
