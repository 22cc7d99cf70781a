#ifndef PIANOLA_BARRIER_H
#define PIANOLA_BARRIER_H

/// Four floats: Swift sees SIMD4<Float>.
typedef float barrier_float4 __attribute__((ext_vector_type(4)));

/// Returns `value` unchanged, computed where it stands: an empty asm statement that the
/// optimizer cannot look through, so that it cannot move the shuffles that follow back
/// across the arithmetic that made the value (LLVM's instcombine turns a transpose of four
/// products into products of transposes: twice the shuffles). Emits no instruction. Any thread.
static inline __attribute__((always_inline)) barrier_float4 barrier_float4_kept(barrier_float4 value) {
    __asm__("" : "+x"(value));
    return value;
}

/// Two doubles: Swift sees SIMD2<Double>.
typedef double barrier_double2 __attribute__((ext_vector_type(2)));

/// `barrier_float4_kept` for two doubles: the optimizer cannot take the value apart into
/// its lanes and put it back together from them in another order. Emits no instruction. Any thread.
static inline __attribute__((always_inline)) barrier_double2 barrier_double2_kept(barrier_double2 value) {
    __asm__("" : "+x"(value));
    return value;
}

/// Returns `value` unchanged, read where it stands as one float: the optimizer cannot fold
/// its load into a wider one with its neighbours in memory, which waits for a narrower store
/// to them just made to reach the cache. Emits no instruction. Any thread.
static inline __attribute__((always_inline)) float barrier_float_kept(float value) {
    __asm__("" : "+x"(value));
    return value;
}

#endif
