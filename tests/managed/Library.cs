// Built by tests/managed_fixtures.py with mcs: generics, nested types, P/Invoke, resources, attributes.
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

[assembly: AssemblyVersion("1.2.3.4")]
[assembly: AssemblyTitle("Fixture Library")]
[assembly: TargetFramework(".NETFramework,Version=v4.5")]

namespace Fixture {
    public interface IShape { double Area(); }

    public class Box<T> : IShape where T : struct {
        public T Value;
        private static int count;
        public class Inner { public int X; public class Deeper { public string Name; } }
        public double Area() { count++; return 1.5; }
        public List<T> Many(T item, int n) {
            var list = new List<T>();
            for (int i = 0; i < n; i++) list.Add(item);
            return list;
        }
        public U Convert<U>(Func<T, U> f) { return f(Value); }
    }

    public static class Native {
        [DllImport("libc.so.6", EntryPoint = "getpid", CallingConvention = CallingConvention.Cdecl)]
        public static extern int GetPid();
        [DllImport("kernel32.dll", CharSet = CharSet.Unicode, SetLastError = true)]
        public static extern int GetTickCount();
        [DllImport("user32.dll", EntryPoint = "MessageBoxW", CharSet = CharSet.Unicode, CallingConvention = CallingConvention.StdCall)]
        public static extern int MessageBox(IntPtr hwnd, string text, string caption, uint type);
    }

    public class Program {
        public static int Counter;
        public static int Main(string[] args) {
            var box = new Box<int>();
            Console.WriteLine(box.Area());
            Counter = args.Length;
            try { return Native.GetPid() + Counter; } catch (Exception) { return 0; }
        }
    }
}
