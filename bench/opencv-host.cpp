// SPDX-License-Identifier: MIT
/*
 * OpenCV's OpenCL paths on one platform, in a fresh process: image
 * processing through the T-API (cv::UMat) and a convolution through
 * cv::dnn with DNN_TARGET_OPENCL. Run it with OCL_ICD_VENDORS naming a
 * directory that holds only that platform's .icd (bench/perf-compare.sh
 * does, alternating libaccel and PoCL). Each result is checked against
 * OpenCV's own CPU path on the same input (OpenCL switched off).
 *
 * OpenCV picks its device from OPENCV_OPENCL_DEVICE (default here
 * ":CPU:", as it looks for GPUs only otherwise), runs cv::dnn on OpenCL
 * only on Intel GPUs unless OPENCV_DNN_OPENCL_ALLOW_ALL_DEVICES=1 (set
 * here), and keeps built programs in ~/.cache unless
 * OPENCV_OPENCL_CACHE_ENABLE=0 (set here, so every run builds them and
 * no run loads binaries an earlier one left). Given values stand, but
 * without OPENCV_OPENCL_CACHE_ENABLE the program sets all three and
 * runs itself again.
 *
 * "result NAME VALUE UNIT" lines, best of -r runs after one warm-up run
 * (which builds the kernels: its time is printed as "first NAME"):
 *   cv-gauss5, cv-gauss11  ms  GaussianBlur 3840x2160 CV_8UC4, 5x5 / 11x11
 *   cv-resize-down         ms  resize 3840x2160 -> 1920x1080 INTER_LINEAR
 *   cv-resize-up           ms  resize 1920x1080 -> 3840x2160 INTER_LINEAR
 *   cv-dnn-conv            ms  Net::forward of one 3x3 convolution, 64 ->
 *                              64 channels, input 1x64x56x56, bias
 * -n NAME runs only the rows whose names contain NAME.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

static unsigned runs = 5;
/* -n: only the rows whose names contain this */
static const char *only = "";
/* a wrong result: the other rows still run, the exit status is 1 */
static bool failed;

static double now_ms()
{
	return std::chrono::duration<double, std::milli>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

static void result(const char *name, double value, const char *unit)
{
	std::printf("result %s %.4f %s\n", name, value, unit);
	std::fflush(stdout);
}

static void print_load(const char *when)
{
	char buf[128] = "";
	FILE *f = std::fopen("/proc/loadavg", "r");

	if (f) {
		if (!std::fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		std::fclose(f);
	}
	buf[std::strcspn(buf, "\n")] = 0;
	std::printf("machine (%s): %ld CPUs online, loadavg %s\n", when,
		    sysconf(_SC_NPROCESSORS_ONLN), buf);
}

/*
 * The best time of @op over the runs; run 0 builds OpenCV's kernels and
 * is reported apart. cv::ocl::finish() waits for the queue, as T-API
 * calls return once their kernels are enqueued.
 */
static double time_op(const char *name, const std::function<void()> &op)
{
	double best = 1e30;

	for (unsigned r = 0; r <= runs; r++) {
		double t0 = now_ms(), t;

		op();
		cv::ocl::finish();
		t = now_ms() - t0;
		if (r == 0)
			std::printf("first %s %.1f ms\n", name, t);
		else
			best = std::min(best, t);
	}
	return best;
}

/* The same image operation on OpenCL (UMat) and on the CPU (Mat). */
static void bench_image(const char *name, const cv::Mat &src,
			const std::function<void(cv::InputArray,
						 cv::OutputArray)> &op)
{
	cv::UMat usrc = src.getUMat(cv::ACCESS_READ), udst;
	cv::Mat got, ref, diff;
	double best, worst;

	if (!std::strstr(name, only))
		return;
	best = time_op(name, [&] { op(usrc, udst); });
	udst.copyTo(got);
	cv::ocl::setUseOpenCL(false);
	op(src, ref);
	cv::ocl::setUseOpenCL(true);
	/* 8-bit results: the OpenCL kernels round in float where the CPU
	 * code uses fixed point, so one step apart is fine */
	cv::absdiff(got, ref, diff);
	cv::minMaxLoc(diff.reshape(1), nullptr, &worst);
	if (got.size() != ref.size() || got.type() != ref.type() ||
	    worst > 1) {
		std::fprintf(stderr, "%s: WRONG: off by up to %g from the CPU "
			     "path (size %dx%d, want %dx%d; best %.1f ms)\n",
			     name, worst, got.cols, got.rows, ref.cols,
			     ref.rows, best);
		failed = true;
		return;
	}
	std::printf("%s checked: off by at most %g\n", name, worst);
	result(name, best, "ms");
}

static cv::dnn::Net conv_net(const cv::Mat &weights, const cv::Mat &bias)
{
	cv::dnn::LayerParams lp;
	cv::dnn::Net net;

	lp.name = "conv";
	lp.type = "Convolution";
	lp.set("kernel_size", 3);
	lp.set("num_output", weights.size[0]);
	lp.set("pad", 1);
	lp.set("stride", 1);
	lp.set("bias_term", true);
	lp.blobs.push_back(weights);
	lp.blobs.push_back(bias);
	net.addLayerToPrev(lp.name, lp.type, lp);
	net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
	return net;
}

/*
 * One 3x3 convolution layer, on DNN_TARGET_OPENCL, against the same net
 * on DNN_TARGET_CPU. Each output sums k = 576 products: both paths stay
 * within 2 k eps of the sum of their magnitudes.
 */
static void bench_conv(void)
{
	const int c = 64, hw = 56, in_shape[] = { 1, c, hw, hw };
	const int w_shape[] = { c, c, 3, 3 };
	const double k = c * 9.0;
	cv::Mat in(4, in_shape, CV_32F), weights(4, w_shape, CV_32F);
	cv::Mat bias(c, 1, CV_32F), got, ref, diff;

	if (!std::strstr("cv-dnn-conv", only))
		return;
	cv::theRNG().state = 42;
	cv::randu(in, -1.0, 1.0);
	cv::randu(weights, -1.0 / 24, 1.0 / 24);
	cv::randu(bias, -0.5, 0.5);

	cv::dnn::Net net = conv_net(weights, bias);
	cv::dnn::Net cpu = conv_net(weights, bias);
	double best, worst, bound;

	net.setPreferableTarget(cv::dnn::DNN_TARGET_OPENCL);
	cpu.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
	best = time_op("cv-dnn-conv", [&] {
		net.setInput(in);
		got = net.forward();
	});
	cpu.setInput(in);
	ref = cpu.forward();
	bound = 2 * k * FLT_EPSILON * (k * 1.0 / 24 * 1.0 + 0.5);
	cv::absdiff(got, ref, diff);
	cv::minMaxLoc(diff.reshape(1, 1), nullptr, &worst);
	if (got.total() != ref.total() || !(worst <= bound)) {
		std::fprintf(stderr, "cv-dnn-conv: WRONG: off by up to %g "
			     "from the CPU path (bound %g, %zu values, want "
			     "%zu)\n", worst, bound, got.total(), ref.total());
		failed = true;
		return;
	}
	std::printf("cv-dnn-conv checked: off by at most %.3g (bound %.3g)\n",
		    worst, bound);
	result("cv-dnn-conv", best, "ms");
}

static std::string cl_platform_name(cl_device_id d)
{
	char name[256] = "";
	cl_platform_id p;

	if (clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof(p), &p, nullptr) ||
	    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name), name,
			      nullptr))
		return "";
	return name;
}

int main(int argc, char **argv)
{
	const char *want = nullptr;
	int opt;

	while ((opt = getopt(argc, argv, "r:p:n:")) != -1) {
		if (opt == 'r' && std::atoi(optarg) > 0 &&
		    std::atoi(optarg) <= 100) {
			runs = (unsigned)std::atoi(optarg);
		} else if (opt == 'p') {
			want = optarg;
		} else if (opt == 'n') {
			only = optarg;
		} else {
			std::fprintf(stderr, "usage: %s [-r RUNS] [-p PLATFORM]"
				     " [-n NAME]\n", argv[0]);
			return 2;
		}
	}
	/*
	 * OpenCV reads some of its settings into statics as its libraries
	 * load (the cache switch among them), before main(): set them,
	 * then run this program again.
	 */
	if (!std::getenv("OPENCV_OPENCL_CACHE_ENABLE")) {
		setenv("OPENCV_OPENCL_DEVICE", ":CPU:", 0);
		setenv("OPENCV_DNN_OPENCL_ALLOW_ALL_DEVICES", "1", 0);
		setenv("OPENCV_OPENCL_CACHE_ENABLE", "0", 1);
		execv("/proc/self/exe", argv);
		std::perror("opencv-host: execv /proc/self/exe");
		return 1;
	}
	print_load("start");
	try {
		cv::ocl::setUseOpenCL(true);
		if (!cv::ocl::haveOpenCL() || !cv::ocl::useOpenCL()) {
			std::fprintf(stderr, "OpenCV does not use OpenCL (no "
				     "device for OPENCV_OPENCL_DEVICE=%s)\n",
				     std::getenv("OPENCV_OPENCL_DEVICE"));
			return 1;
		}
		const cv::ocl::Device &dev = cv::ocl::Device::getDefault();
		std::string plat = cl_platform_name(
			static_cast<cl_device_id>(dev.ptr()));

		std::printf("platform \"%s\"\n", plat.c_str());
		std::printf("device   \"%s\" (%s, OpenCV %s)\n",
			    dev.name().c_str(), dev.version().c_str(),
			    CV_VERSION);
		if (want && plat.find(want) == std::string::npos) {
			std::fprintf(stderr, "OpenCV uses platform \"%s\", not "
				     "\"%s\"\n", plat.c_str(), want);
			return 1;
		}

		cv::Mat big(2160, 3840, CV_8UC4), small(1080, 1920, CV_8UC4);
		cv::theRNG().state = 7;
		cv::randu(big, 0, 256);
		cv::randu(small, 0, 256);
		bench_image("cv-gauss5", big, [](cv::InputArray s,
						 cv::OutputArray d) {
			cv::GaussianBlur(s, d, cv::Size(5, 5), 0);
		});
		bench_image("cv-gauss11", big, [](cv::InputArray s,
						  cv::OutputArray d) {
			cv::GaussianBlur(s, d, cv::Size(11, 11), 0);
		});
		bench_image("cv-resize-down", big, [](cv::InputArray s,
						      cv::OutputArray d) {
			cv::resize(s, d, cv::Size(1920, 1080), 0, 0,
				   cv::INTER_LINEAR);
		});
		bench_image("cv-resize-up", small, [](cv::InputArray s,
						      cv::OutputArray d) {
			cv::resize(s, d, cv::Size(3840, 2160), 0, 0,
				   cv::INTER_LINEAR);
		});
		bench_conv();
	} catch (const cv::Exception &e) {
		std::fprintf(stderr, "OpenCV error: %s\n", e.what());
		return 1;
	}
	print_load("end");
	return failed ? 1 : 0;
}
