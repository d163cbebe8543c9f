# tests/mpi/reduce.cmake — issue 5: `gpipe reduce`, `stats`, `verify` through the CLI against
# exact Python references (math.fsum, integers, fractions); included from tests/mpi/CMakeLists.txt.
# Bit-identical results across rank counts and panel sizes follow from every run matching the
# same exact reference: the whole suite runs at 3 ranks, the most demanding cases (f64 with
# specials at four panel sizes, f32, argmin/argmax, stats, verify) at 1, 2 and 4 ranks.
# check_reduce.py batches each input's op x axis requests at one panel size into one job file
# (one launch; `gpipe reduce` itself for one op per axis): the suite at 3 ranks takes ~2 min.
# np2 runs in the sanitized tree (tests/CMakeLists.txt, GP_SAN_ONLY), the others in the release tree.
set(GP_REDUCE_SUBSET --only reduce_f64 --only reduce_f32 --only reduce_arg --only stats_f64
                     --only verify_f64 --only mixed_modes --only uneven_panels)
foreach(np 1 2 3 4)
  if(np EQUAL 3)
    set(sel)
  else()
    set(sel ${GP_REDUCE_SUBSET})
  endif()
  add_test(NAME mpi_reduce_np${np}
           COMMAND ${GP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_reduce.py
                   --gpipe $<TARGET_FILE:gpipe> --np ${np} --timeout 120 ${sel})
  set_tests_properties(mpi_reduce_np${np} PROPERTIES LABELS "mpi;reduce" TIMEOUT 1800)
endforeach()
