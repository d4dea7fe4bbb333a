/* SPDX-License-Identifier: MIT */
/**
 * @file accel-error.h
 * @brief What libaccel means by the errno values its functions return.
 *
 * strerror(ENOEXEC) says "Exec format error"; from libaccel it means a
 * failed build, a kernel argument never set or a foreign program binary.
 * accel_strerror() gives that meaning, for messages shown to users.
 */
#ifndef LIBACCEL_ACCEL_ERROR_H
#define LIBACCEL_ACCEL_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Describe an error returned by a libaccel function.
 * @param error a negative errno as returned (a positive one is taken as
 *        its negation), or 0
 * @return a static, constant, English string (never NULL; thread-safe):
 *         libaccel's meaning of the value, else the C library's
 *         description, else "unknown error"
 */
const char *accel_strerror(int error);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCEL_ACCEL_ERROR_H */
