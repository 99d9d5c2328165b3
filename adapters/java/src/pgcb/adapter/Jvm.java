package pgcb.adapter;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * What the JVM runs with, for hello's runtime and links: its version and
 * the flags that decide a measurement (the garbage collector, the heap,
 * the CPU count its ergonomics sized its threads for, the JIT tiers), as
 * the JVM reports its own input arguments (adapters/java/jvm.options,
 * expanded by the launcher), and the collectors it really runs.
 */
final class Jvm {
    private Jvm() {}

    /**
     * The JDK's name: its vendor version's ("Temurin-25.0.3+9": Temurin),
     * OpenJDK when it has none (Debian's).
     */
    static String name() {
        String vv = System.getProperty("java.vendor.version");
        if (vv == null || vv.isEmpty())
            return "OpenJDK";
        int dash = vv.indexOf('-');
        return dash > 0 ? vv.substring(0, dash) : vv;
    }

    /**
     * "Temurin 25.0.3+9-LTS (OpenJDK 64-Bit Server VM)",
     * "OpenJDK 17.0.15+6-Debian-1deb12u1 (OpenJDK 64-Bit Server VM)".
     */
    static String runtime() {
        return name() + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vm.name") + ")";
    }

    /** The flags that decide a measurement, as given. */
    static List<String> flags() {
        List<String> out = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
            if (a.matches("-XX:[+-]?Use\\w*GC|-Xm[sxn]\\S*|-XX:ActiveProcessorCount=\\S*|-XX:TieredStopAtLevel=\\S*"
                    + "|-XX:[+-]AlwaysPreTouch|-Xint|-XX:[+-]TieredCompilation|-XX:CICompilerCount=\\S*"))
                out.add(a);
        return out;
    }

    /** The collectors the JVM runs ("Copy, MarkSweepCompact": Serial). */
    static String collectors() {
        List<String> n = new ArrayList<>();
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans())
            n.add(b.getName());
        return String.join(", ", n);
    }

    /** "Temurin 25.0.3 -XX:+UseSerialGC -Xms256m ..." (the version without its build, the flags). */
    static String summary() {
        String v = System.getProperty("java.version");
        return name() + " " + v + (flags().isEmpty() ? " (no flags)" : " " + String.join(" ", flags()));
    }
}
