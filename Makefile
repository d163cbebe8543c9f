# gpipe — the README's two commands. `make demo` and `make test` take a fresh Debian/Ubuntu
# machine to a working build: missing packages are installed when run as root (otherwise the
# apt-get line is printed), then CMake configures and builds into build/.
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
NP      ?= 4
PY      ?= /usr/bin/python3
PKGS     = cmake make gcc g++ pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
           libcmocka-dev libjansson-dev libxxhash-dev libinih-dev python3-h5py python3-numpy
MPIRUN   = mpirun -q --oversubscribe $(if $(filter 0,$(shell id -u)),--allow-run-as-root) -n $(NP)
DEMO     = $(BUILD)/demo

.PHONY: all deps build demo test clean

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

# The main job on a built-in demo matrix: generate, transpose with NP ranks, check with h5py.
demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	$(MPIRUN) $(BUILD)/gpipe gen $(DEMO)/demo.h5 --shape 1999x1013 --dtype f64 --chunk 256x256 --seed 42
	$(BUILD)/gpipe info $(DEMO)/demo.h5
	$(MPIRUN) $(BUILD)/gpipe transpose $(DEMO)/demo.h5
	$(BUILD)/gpipe info $(DEMO)/demo.T.h5
	$(PY) tests/verify_transpose.py $(DEMO)/demo.h5 $(DEMO)/demo.T.h5
	@echo "demo: OK ($(DEMO)/demo.T.h5 is the transpose of $(DEMO)/demo.h5, checked by h5py)"

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
