package org.pettingllms.envs.search;

/**
 * One retrievable passage. A corpus line of the Search-R1 layout, {@code {"id", "contents": "\"Title\"\ntext"}},
 * is one passage ({@link #parse}); {@link #contents} writes it back in that layout.
 *
 * @param id    the corpus's id for it (unique within a corpus)
 * @param title its title: the entity it is about (what supporting facts name)
 * @param text  the passage without its title
 */
public record Passage(String id, String title, String text) {
    public Passage {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("a passage needs an id");
        }
        title = title == null ? "" : title.strip();
        text = text == null ? "" : text.strip();
    }

    /** A passage from the {@code contents} layout: the first line is the title (quotes around it dropped). */
    public static Passage parse(String id, String contents) {
        int nl = contents.indexOf('\n');
        String first = nl < 0 ? contents : contents.substring(0, nl);
        String rest = nl < 0 ? "" : contents.substring(nl + 1);
        String title = first.strip();
        if (title.length() >= 2 && title.startsWith("\"") && title.endsWith("\"")) {
            title = title.substring(1, title.length() - 1);
        }
        return new Passage(id, title, rest);
    }

    /** The {@code contents} field of the Search-R1 layout: the title in quotes, a newline, the text. */
    public String contents() {
        return "\"" + title + "\"\n" + text;
    }

    /** What BM25 indexes: the title and the text (the corpus's {@code contents}, as Search-R1's index has it). */
    String indexed() {
        return title + "\n" + text;
    }
}
