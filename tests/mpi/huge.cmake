# tests/mpi/huge.cmake — issue 8, extreme shapes: 1 x N and N x 1 u8 with N = 2^31 + 11 through
# gen, transpose (direct at 3 ranks, all-to-all at 2 ranks with panels straddling 2^31), checked
# in pieces with h5py against A and an independent XXH64 reference (check_huge.py). ~6.5 GiB of
# disk under the build tree's tests/mpi/tmp, removed at the end. Release tree only (label san
# absent): it moves 8 GiB through the file system, sanitizers add nothing to that here.
add_test(NAME mpi_huge
         COMMAND ${GP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_huge.py ${GP_MPI_TEST_ARGS} --np 2)
set_tests_properties(mpi_huge PROPERTIES LABELS "mpi;huge" TIMEOUT 1800
                     ENVIRONMENT "${GP_MPI_TEST_ENV}" RESOURCE_LOCK gpipe_mpi)
