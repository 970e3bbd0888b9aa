// The same libtorch link settings as dojo-core (rpath, libtorch_cuda kept): see there.
include!("../core/build.rs");
