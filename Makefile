# SPDX-License-Identifier: Apache-2.0
# A thin front for people who expect make; CMake does the building.
#
#   make          build (Release with debug info) into build/
#   make test     install missing packages, build, run every default test
#   make demo     install missing packages, build, replay the bundled trace
#   make bench    CUDA micro-benchmarks (needs a GPU and the CUDA toolkit)
#   make gpu-check  the CUDA half checked on this host's GPU in under 8 minutes
#                 (results/bench/<device>/gpu-check/; GPU_CHECK_OUT=DIR gets a tarball)
#   make bench-sim  simulator speed benchmarks (needs the openb trace)
#   make bench-hook   libgpushare's cost on an unthrottled launch, on the fake driver
#   make bench-scale  time mode on synthetic clusters of 1k-100k nodes, 10k-1M pods (long)
#   make bench-sharing  each sharing mode against exclusive on the H100 example x 1000 (long)
#   make bench-advise the default gpusim advise on the H100 example and on openb (minutes)
#   make test-slurm   sweep shards as a Slurm job array on this host (needs slurm-wlm, munge)
#   make asan     build and test under ASan+UBSan in build-asan/
#   make repro    the FGD reproduction's statistical acceptance test (label "repro",
#                 minutes); prints the table of all 78 published cells
#   make repro-sharing  the sharing model against the published measurements of
#                 results/validation/ (seconds, no GPU): the table of every row,
#                 published vs gpusim vs ratio, pass within 15 %, and the figure
#                 results/plots/validation_sharing.{png,svg} (docs/sharing-model.md)
#   make regress  the regression check: the baseline's runs, compared with
#                 results/baseline/; report and figures in results/ci/
#   make baseline regenerate results/baseline/ (after an intended change of results)
#   make install  install into PREFIX (default /usr/local), under DESTDIR if set
#   make deb      a Debian package (CPack) in build/
#   make test-install  install into a scratch DESTDIR and build, inspect and run the .deb
#   make faults   the store under injected faults (every write, sync and allocation
#                 failed in turn, 40 points per command and kind; tests/fault/)
#   make fuzz     every reader's libFuzzer target, FUZZ_SECONDS (15) each, ASan+UBSan,
#                 in build-fuzz/ (clang; tests/fuzz/README.md)

BUILD    ?= build
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
GPUSIM   = $(BUILD)/gpusim

PREFIX   ?= /usr/local

FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 15

.PHONY: all deps build test test-slurm faults demo bench gpu-check bench-sim bench-hook bench-scale bench-sharing bench-advise asan repro repro-sharing regress baseline install deb test-install \
	fuzz clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'repro|slurm'

test-slurm:
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && GS_TEST_SLURM=1 ctest --output-on-failure -L slurm

faults: deps
	@$(MAKE) --no-print-directory build
	FAULT_POINTS=40 bash tests/fault/check_faults.sh $(GPUSIM) $(BUILD)/tests/libgsfault.so .

demo: deps
	@$(MAKE) --no-print-directory build
	@scripts/demo.sh $(GPUSIM)

bench:
	@scripts/bench-cuda.sh $(BUILD)

gpu-check:
	@GPU_CHECK_OUT="$(GPU_CHECK_OUT)" sh scripts/gpu-check.sh $(BUILD)

bench-sim: deps
	@$(MAKE) --no-print-directory build
	@bench/sim/run.sh $(BUILD)

bench-hook:
	@$(MAKE) --no-print-directory build
	@bench/cuda/hook/bench_launch.sh $(BUILD)

bench-scale: deps
	@$(MAKE) --no-print-directory build
	@bench/sim/scale.sh $(BUILD)

bench-sharing: deps
	@$(MAKE) --no-print-directory build
	@bench/sim/sharing.sh $(BUILD)

bench-advise: deps
	@$(MAKE) --no-print-directory build
	@bench/sim/advise.sh $(BUILD)

asan: deps
	cmake -S . -B build-asan -DGS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS) -LE 'repro'

repro: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --verbose -L repro

repro-sharing: build
	@if command -v gnuplot >/dev/null 2>&1; then \
		$(GPUSIM) interference validate --plot results/plots; \
	else \
		echo "repro-sharing: no gnuplot: the table only, no figure"; \
		$(GPUSIM) interference validate; \
	fi

regress: build
	@scripts/regress.sh check $(BUILD)

baseline: build
	@scripts/regress.sh baseline $(BUILD)

install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

deb: build
	cd $(BUILD) && cpack -G DEB

test-install: build
	@scripts/test-install.sh $(BUILD)

fuzz:
	@scripts/deps.sh --fuzz
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DGS_FUZZ=ON -DBUILD_TESTING=OFF -DGS_CUDA=OFF \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz-targets
	scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-asan $(FUZZ_BUILD)
