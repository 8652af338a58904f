package io.forgeflow.server;

/** Reads a value out of a Prometheus text exposition. */
final class Scrape {
    private final String text;

    Scrape(String text) {
        this.text = text;
    }

    /**
     * The sum of the samples of {@code name} whose labels include every {@code key="value"} pair given (0 when none).
     *
     * @param labels pairs such as {@code status="succeeded"}
     */
    double value(String name, String... labels) {
        double sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            String metric = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
            if (!metric.equals(name)) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= series.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(space + 1));
            }
        }
        return sum;
    }

    boolean has(String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                return true;
            }
        }
        return false;
    }

    /** The whole exposition. */
    String text() {
        return text;
    }

    @Override
    public String toString() {
        return text;
    }
}
