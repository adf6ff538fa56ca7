#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cuda-lib.sh - what make bench (scripts/bench-cuda.sh) and make gpu-check
# (scripts/gpu-check.sh) share, sourced by both: finding the GPU, naming
# the results' directory after it, and building bench/cuda's programs for
# it. POSIX sh; the caller sets root, the repository's directory.
#
#   cuda_gpu_missing       prints why this host has no usable NVIDIA GPU, or nothing
#   cuda_device_name       the first GPU's name, as nvidia-smi gives it
#   cuda_slug NAME         NAME as a directory name (results/bench/<slug>/)
#   cuda_build DIR TARGET...
#       configures and builds in DIR: the simulator (GS_SIM) only when
#       pkg-config finds GSL, SQLite and cJSON, the tests only when cmocka
#       is there too, Ninja when it is installed (no make needed), nvcc from
#       PATH or /usr/local/cuda/bin, CUDA_ARCHS (default native) for the GPU
#       architectures. Output on stderr; status 1 without nvcc or when the
#       build fails.

cuda_gpu_missing() {
	if ! command -v nvidia-smi >/dev/null 2>&1; then
		echo "nvidia-smi is not installed (no NVIDIA driver)"
	elif ! nvidia-smi -L >/dev/null 2>&1; then
		echo "nvidia-smi fails ($(nvidia-smi -L 2>&1 | head -n 1))"
	elif [ ! -e /dev/nvidia0 ]; then
		echo "there is no /dev/nvidia0 (no GPU visible here)"
	fi
}

cuda_device_name() {
	nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1
}

cuda_slug() {
	printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '-' | sed 's/--*/-/g; s/-$//'
}

cuda_build() {
	: "${root:?cuda-lib.sh: root must name the repository}"
	cb_dir=$1
	shift
	cb_nvcc=$(command -v nvcc || true)
	if [ -z "$cb_nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
		cb_nvcc=/usr/local/cuda/bin/nvcc
	fi
	if [ -z "$cb_nvcc" ]; then
		echo "the CUDA toolkit is needed (nvcc not in PATH nor in /usr/local/cuda/bin)" >&2
		return 1
	fi
	cb_sim=OFF
	if command -v pkg-config >/dev/null 2>&1 &&
		pkg-config --exists gsl sqlite3 libcjson 2>/dev/null; then
		cb_sim=ON
	fi
	cb_test=OFF
	if [ "$cb_sim" = ON ] && pkg-config --exists cmocka 2>/dev/null; then
		cb_test=ON
	fi
	cb_gen=""
	if command -v ninja >/dev/null 2>&1 && [ ! -f "$cb_dir/CMakeCache.txt" ]; then
		cb_gen="-G Ninja"
	fi
	echo "cuda-lib: configuring $cb_dir (GS_SIM=$cb_sim, tests $cb_test, nvcc $cb_nvcc)" >&2
	# shellcheck disable=SC2086
	cmake -S "$root" -B "$cb_dir" $cb_gen -DCMAKE_BUILD_TYPE=Release -DGS_CUDA=ON \
		-DGS_SIM="$cb_sim" -DBUILD_TESTING="$cb_test" -DCMAKE_CUDA_COMPILER="$cb_nvcc" \
		-DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-native}" >&2 || return 1
	if [ "$cb_sim" = ON ]; then
		set -- "$@" gpusim
	fi
	cmake --build "$cb_dir" -j "$(nproc 2>/dev/null || echo 2)" --target "$@" >&2
}
