package io.forgeflow.server;

/** A JVM that protects itself as a node does (argument {@code on}) or not ({@code off}), then waits to be read. */
public final class NonDumpableMain {
    private NonDumpableMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("on") && !ProcessProtection.makeNonDumpable()) {
            System.out.println("failed");
        }
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(120_000); // read by the test, then killed
    }
}
