// Built by tests/test_managed_verify.py with mcs: P/Invoke imports of a gcc-built shared object.
using System.Runtime.InteropServices;

namespace Interop {
    public static class Native {
        [DllImport("libnative.so", EntryPoint = "native_add", CallingConvention = CallingConvention.Cdecl)]
        public static extern int Add(int a, int b);
        [DllImport("libnative.so", EntryPoint = "native_missing")]
        public static extern int Missing();
        [DllImport("libnative.so", EntryPoint = "native_hidden")]
        public static extern int Hidden();
        [DllImport("libother.so")]
        public static extern int native_other();
    }
}
