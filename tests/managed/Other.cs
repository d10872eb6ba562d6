// A second build of the library's shape with one method changed (for compare_managed_members).
namespace Fixture {
    public class Program {
        public static int Counter;
        public static int Main(string[] args) { Counter = args.Length + 1; return Counter; }
        public static int Added() { return 7; }
    }
}
