/* SPDX-License-Identifier: MIT */
/*
 * fenced-pipeline: what its two middle stages (libaccel's C API in
 * fenced-pipeline.c, OpenCL in fenced-pipeline-cl.c) share: the producer
 * (a vgem job) and the consumer (a poll on a sync_file).
 */
#ifndef FENCED_PIPELINE_H
#define FENCED_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_SKIP 77

struct producer {
	int card;
	uint32_t bo;
	int dmabuf;
	uint32_t job; /* the running job's vgem fence */
};

/* Start a "job" on vgem; its out-fence as a new sync_file fd. */
int producer_start(struct producer *p, int *ret_sync_fd);
/* The job ends: signal its fence. */
int producer_finish(struct producer *p);

/* poll(2) for readability: 1 ready, 0 not within @timeout_ms, -errno. */
int consumer_poll(int fd, int timeout_ms);
/* Print SYNC_IOC_FILE_INFO's view of a sync_file. */
void print_info(int fd);

/*
 * The order both middle stages must keep: while the producer's job runs,
 * neither the consumer's sync_file @out_fd nor the work (@ran) may move;
 * once the producer signals (this does it), @out_fd signals. 0, or 1
 * after saying what broke.
 */
int consumer_check_order(struct producer *prod, int out_fd,
			 bool (*ran)(void *data), void *data);

/* Print "fenced-pipeline: @what: <strerror>"; returns 1. */
int fail(const char *what, int r);

#ifdef FENCED_PIPELINE_OPENCL
/*
 * The middle stage in OpenCL. Takes *in_fd (sets it to -1 once the
 * semaphore import owns it). 0, 1 on failure, EXIT_SKIP.
 */
int pipeline_opencl(struct producer *prod, int *in_fd);
#else
static inline int pipeline_opencl(struct producer *prod, int *in_fd)
{
	(void)prod;
	(void)in_fd;
	printf("fenced-pipeline: SKIP: built without OpenCL\n");
	return EXIT_SKIP;
}
#endif

#endif /* FENCED_PIPELINE_H */
