# gpipe — the README's two commands. `make demo` and `make test` take a fresh Debian/Ubuntu
# machine to a working build: missing packages are installed when run as root (otherwise the
# apt-get line is printed), then CMake configures and builds into build/; `make test` also builds
# build-asan/ (ASan + UBSan, CPU only) and runs the two test trees side by side (tests/CMakeLists.txt).
BUILD   ?= build
ASAN    ?= build-asan
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
ASAN_J  ?= $(JOBS)
NP      ?= 4
PY      ?= /usr/bin/python3
PKGS     = cmake make gcc g++ pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
           libcmocka-dev libjansson-dev libxxhash-dev libinih-dev python3-h5py python3-numpy
MPIRUN   = mpirun -q --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root) -n $(NP)
DEMO     = $(BUILD)/demo

.PHONY: all deps build build-asan demo test clean

all: build

deps:
	@missing=$$(for p in $(PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "gpipe: installing $$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "gpipe: missing packages; run: sudo apt-get install -y $$missing"; exit 1; \
	  fi; \
	fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The sanitized tree: -fsanitize=address,undefined at -O1, no CUDA (nvcc runs once, for build/).
$(ASAN)/CMakeCache.txt: | deps
	cmake -S . -B $(ASAN) -DGPIPE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O1 -g"

build-asan: deps $(ASAN)/CMakeCache.txt
	cmake --build $(ASAN) -j $(JOBS)

# The main job on a built-in demo matrix: generate, transpose with NP ranks, check with h5py.
demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	$(MPIRUN) $(BUILD)/gpipe gen $(DEMO)/demo.h5 --shape 1999x1013 --dtype f64 --chunk 256x256 --seed 42
	$(BUILD)/gpipe info $(DEMO)/demo.h5
	$(MPIRUN) $(BUILD)/gpipe transpose $(DEMO)/demo.h5
	$(BUILD)/gpipe info $(DEMO)/demo.T.h5
	$(PY) tests/verify_transpose.py $(DEMO)/demo.h5 $(DEMO)/demo.T.h5
	@echo "demo: OK ($(DEMO)/demo.T.h5 is the transpose of $(DEMO)/demo.h5, checked by h5py)"

# Every test, in one of two trees at the same time (each test's tree: its labels, tests/CMakeLists.txt):
# build-asan/ is built first (fast, no nvcc) and runs the tests labelled san in the background
# (its lines start with "asan| "), while build/ is built and runs all but those labelled san_only.
# Fails when either fails; a sanitizer report anywhere fails the test `sanitizer_reports`.
test: deps $(BUILD)/CMakeCache.txt $(ASAN)/CMakeCache.txt
	@t0=$$(date +%s); rm -f $(ASAN)/ctest.rc; \
	cmake --build $(ASAN) -j $(JOBS) >$(ASAN)/build.log 2>&1 || { cat $(ASAN)/build.log; exit 1; }; \
	echo "gpipe: $(ASAN) built ($$(( $$(date +%s) - t0 )) s); its tests run in the background, lines 'asan| '"; \
	{ ctest --test-dir $(ASAN) --output-on-failure -j $(ASAN_J) -L '^san$$' 2>&1; echo $$? >$(ASAN)/ctest.rc; } \
	  | sed -u 's/^/asan| /' & \
	rel=1; if cmake --build $(BUILD) -j $(JOBS); then \
	  echo "gpipe: $(BUILD) built ($$(( $$(date +%s) - t0 )) s)"; \
	  ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE '^san_only$$'; rel=$$?; \
	  echo "gpipe: $(BUILD) tests done ($$(( $$(date +%s) - t0 )) s), exit $$rel; waiting for $(ASAN)"; \
	fi; \
	wait; san=$$(cat $(ASAN)/ctest.rc 2>/dev/null || echo 1); \
	echo "gpipe: make test: $(BUILD) exit $$rel, $(ASAN) exit $$san, $$(( $$(date +%s) - t0 )) s"; \
	[ "$$rel" = 0 ] && [ "$$san" = 0 ]

clean:
	rm -rf $(BUILD) $(ASAN)
