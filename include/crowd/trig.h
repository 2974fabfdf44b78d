// Sine and cosine with the same bits on every target.
//
// C libraries round sin and cos differently in the last bit (glibc, musl and wasi-libc do not
// agree), and a last bit is enough to change a state hash. The engine and the scene and scenario
// builders use these instead: argument reduction by pi/2 in three parts and fdlibm's kernel
// polynomials, in double precision with no contraction, so every IEEE-754 target computes the
// same result. They are accurate to about 1 ulp of a double for |x| < 1e6 (beyond that the
// reduction loses accuracy but stays deterministic); the float forms round that result, which is
// the correctly rounded float but for arguments within about 2^-29 of a rounding boundary.
#ifndef CROWD_TRIG_H
#define CROWD_TRIG_H

#include "crowd/base.h"

#ifdef __cplusplus
extern "C" {
#endif

CROWD_API double crowd_sin(double x);
CROWD_API double crowd_cos(double x);
CROWD_API float crowd_sinf(float x); // (float)crowd_sin(x)
CROWD_API float crowd_cosf(float x); // (float)crowd_cos(x)

#ifdef __cplusplus
}
#endif

#endif
