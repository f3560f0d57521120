package org.pettingllms.envs.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.envs.data.ContentSplit;

/**
 * Generated shop databases at CPU scale ({@code task.options.generator: shop}), one per problem seed: cities,
 * customers with a tier, their orders. Each world stores what the questions speak of in its own way, drawn from the
 * seed: a city's name in one of its other spellings ({@code NYC}, {@code St. Louis}, {@code FT WORTH}) and the tiers
 * as one of several codes ({@code G}/{@code S}/{@code B}, {@code 1}/{@code 2}/{@code 3}, ...). The question says
 * "gold tier" and "Saint Louis"; the schema shows neither spelling. So a writer that trusts the wording writes a
 * query that runs and answers wrongly (the generator checks its result differs from the gold one), and the team's
 * explorer, which can look at the data, is what finds the stored values.
 */
public final class ShopWorlds {
    public static final String NAME = "shop";

    /** Each city as a question names it, then the spellings a world may store instead. */
    private static final Map<String, List<String>> CITIES = new LinkedHashMap<>();

    static {
        CITIES.put("New York", List.of("NEW YORK", "New York City", "NYC", "new york"));
        CITIES.put("Saint Louis", List.of("St. Louis", "ST LOUIS", "St Louis", "saint louis"));
        CITIES.put("Los Angeles", List.of("LA", "L.A.", "LOS ANGELES", "los angeles"));
        CITIES.put("Fort Worth", List.of("Ft. Worth", "FT WORTH", "Ft Worth", "fort worth"));
        CITIES.put("San Francisco", List.of("SF", "S.F.", "SAN FRANCISCO", "S. Francisco"));
        CITIES.put("Salt Lake City", List.of("SLC", "S.L.C.", "SALT LAKE CITY", "salt lake city"));
    }

    /**
     * The pattern an explorer looks a city up with ({@code SELECT name FROM city WHERE name LIKE ...}): SQLite's LIKE
     * ignores ASCII case, and each pattern matches its own city's spellings and no other city's ({@code
     * SqlTaskTest}), so the look returns the one stored name the question means. The warm-up's explorer demonstrates
     * this look rather than the whole city table: given all six names, the project's base model did not learn to pick
     * the asked city's row (docs/learning-diagnosis.md, section 9); given one, the writer has a name to copy.
     */
    private static final Map<String, String> LOOKUPS = Map.of(
            "New York", "n%y%",
            "Saint Louis", "%louis",
            "Los Angeles", "l%a%",
            "Fort Worth", "f%w%",
            "San Francisco", "s%f%",
            "Salt Lake City", "s%l%c%");

    private static final List<String> TIERS = List.of("gold", "silver", "bronze");
    private static final List<List<String>> TIER_CODES = List.of(
            List.of("G", "S", "B"),
            List.of("1", "2", "3"),
            List.of("GLD", "SLV", "BRZ"),
            List.of("Gold", "Silver", "Bronze"),
            List.of("AU", "AG", "CU"));
    private static final List<String> NAMES = List.of(
            "Ada", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Milo", "Nia",
            "Otto", "Pia", "Quin", "Rosa", "Sam", "Tess", "Uma", "Vic", "Wes", "Xia", "Yuri", "Zoe");

    static final String SCHEMA = "CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT)\n"
            + "CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, city_id INTEGER, tier TEXT)\n"
            + "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, amount INTEGER)";

    private ShopWorlds() {}

    /** A drawn problem before its database is written: the world's stored spellings and the question on it. */
    private record Draft(
            String id,
            String question,
            String gold,
            List<String> keys,
            String naive,
            long worldSeed,
            List<String> stored,
            List<String> codes,
            int city,
            int tier) {}

    /**
     * The problem of {@code seed}, its database written under {@code dir} (once; later calls reuse the file). Problems
     * are split by seed range and by their question's text ({@link ContentSplit}): no held-out question is ever a
     * training question, whatever world it is asked on. Each question has four wordings (132 questions in all), so a
     * held-out question is mostly a new wording of a kind of question (a template with its city and tier) that
     * training asks in other words: with one wording each, a model as small as the project's base model met a
     * held-out kind it had never seen (the count of bronze customers) and wrote what it had memorised for another.
     */
    public static SqlItem item(long seed, Path dir) {
        Draft d = ContentSplit.row(seed, ShopWorlds::draw, Draft::question);
        // named by the world drawn, not the seed alone: a file of another draw for the same seed is never reused
        Path db = dir.resolve(d.id() + "-" + Long.toHexString(d.worldSeed() >>> 32) + ".sqlite");
        ensure(db, d.worldSeed(), d.stored(), d.codes(), d.city(), d.tier());
        return new SqlItem(d.id(), db.toString(), SCHEMA, d.question(), d.gold(), d.keys(), d.naive());
    }

    private static Draft draw(long seed, long idSeed) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<String> spoken = new ArrayList<>(CITIES.keySet());
        List<String> stored = new ArrayList<>();
        for (String city : spoken) {
            List<String> v = CITIES.get(city);
            stored.add(v.get(rng.nextInt(v.size())));
        }
        List<String> codes = TIER_CODES.get(rng.nextInt(TIER_CODES.size()));
        int city = rng.nextInt(spoken.size());
        int tier = rng.nextInt(TIERS.size());
        int template = rng.nextInt(4);
        long worldSeed = rng.nextLong();
        String c = sql(stored.get(city));
        String t = sql(codes.get(tier));
        String cityJoin = " JOIN city ON customer.city_id = city.id";
        String question;
        String gold;
        List<String> keys;
        int wording = rng.nextInt(4);
        String place = spoken.get(city);
        String level = TIERS.get(tier);
        switch (template) {
            case 0 -> {
                question = List.of(
                                "How many customers live in " + place + "?",
                                "How many customers are from " + place + "?",
                                "Count the customers in " + place + ".",
                                "What is the number of customers living in " + place + "?")
                        .get(wording);
                gold = "SELECT count(*) FROM customer" + cityJoin + " WHERE city.name = " + c;
                keys = List.of(stored.get(city));
            }
            case 1 -> {
                question = List.of(
                                "How many " + level + " tier customers are there?",
                                "How many customers have the " + level + " tier?",
                                "Count the " + level + " tier customers.",
                                "What is the number of " + level + " tier customers?")
                        .get(wording);
                gold = "SELECT count(*) FROM customer WHERE tier = " + t;
                keys = List.of(codes.get(tier));
            }
            case 2 -> {
                question = List.of(
                                "What is the total amount of the orders of customers in " + place + "?",
                                "What do customers from " + place + " spend on orders in total?",
                                "Sum the order amounts of customers living in " + place + ".",
                                "What is the total order amount for " + place + "?")
                        .get(wording);
                gold = "SELECT sum(orders.amount) FROM orders JOIN customer ON orders.customer_id = customer.id"
                        + cityJoin + " WHERE city.name = " + c;
                keys = List.of(stored.get(city));
            }
            default -> {
                question = List.of(
                                "What are the names of the " + level + " tier customers in " + place + "?",
                                "List the names of " + level + " tier customers living in " + place + ".",
                                "Which " + level + " tier customers are from " + place + "?",
                                "Name the customers in " + place + " who have the " + level + " tier.")
                        .get(wording);
                gold = "SELECT customer.name FROM customer" + cityJoin + " WHERE customer.tier = " + t
                        + " AND city.name = " + c;
                keys = List.of(codes.get(tier), stored.get(city));
            }
        }
        String naive = gold.replace(c, sql(spoken.get(city))).replace(t, sql(TIERS.get(tier)));
        String id = NAME + "-" + Long.toUnsignedString(idSeed, 36);
        return new Draft(id, question, gold, keys, naive, worldSeed, stored, codes, city, tier);
    }

    /**
     * The query that shows the stored values a generated question needs ({@link SqlItem#keys}): a city looked up by
     * its pattern, the tier codes, or both in one result. Empty for keys that are neither (a dataset row has none).
     */
    public static String lookup(List<String> keys) {
        List<String> parts = new ArrayList<>();
        CITIES.forEach((spoken, spellings) -> {
            if (keys.stream().anyMatch(spellings::contains)) {
                parts.add("SELECT name FROM city WHERE name LIKE " + sql(LOOKUPS.get(spoken)));
            }
        });
        if (keys.stream().anyMatch(key -> TIER_CODES.stream().anyMatch(codes -> codes.contains(key)))) {
            parts.add("SELECT DISTINCT tier FROM customer");
        }
        return String.join(" UNION ALL ", parts);
    }

    /**
     * What an exploration may show beside the needed values {@code keys} and still be precise (the explorer's
     * precision, {@link SqlTask#explorerReward}): the keys and, for a tier code, the world's whole code set, since
     * which code is the asked tier is read from the set ({@code 1}/{@code 2}/{@code 3} says nothing alone).
     */
    static Set<String> relevant(List<String> keys) {
        Set<String> out = new LinkedHashSet<>(keys);
        for (List<String> codes : TIER_CODES) {
            if (keys.stream().anyMatch(codes::contains)) {
                out.addAll(codes);
            }
        }
        return out;
    }

    /** Each city's stored spellings, for tests. */
    static List<List<String>> spellingsByCity() {
        return List.copyOf(CITIES.values());
    }

    private static String sql(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    /**
     * Writes the world's database unless it is there: 6 cities, 40 customers, 120 orders, with at least two
     * customers of the asked tier in the asked city (every question then has a non-empty, non-zero answer, which a
     * query on the question's wording, matching nothing, cannot give).
     */
    private static void ensure(Path db, long seed, List<String> cities, List<String> codes, int city, int tier) {
        if (Files.isRegularFile(db)) {
            return;
        }
        try {
            Files.createDirectories(db.getParent());
            Path tmp = AtomicFiles.tempBeside(db);
            Files.deleteIfExists(tmp);
            SplittableRandom rng = new SplittableRandom(seed);
            try (Connection conn = DriverManager.getConnection("jdbc:sqlite:" + tmp);
                    Statement s = conn.createStatement()) {
                for (String line : SCHEMA.split("\n")) {
                    s.execute(line);
                }
                conn.setAutoCommit(false);
                try (PreparedStatement p = conn.prepareStatement("INSERT INTO city VALUES (?, ?)")) {
                    for (int i = 0; i < cities.size(); i++) {
                        p.setInt(1, i + 1);
                        p.setString(2, cities.get(i));
                        p.executeUpdate();
                    }
                }
                int customers = 40;
                try (PreparedStatement p = conn.prepareStatement("INSERT INTO customer VALUES (?, ?, ?, ?)")) {
                    for (int i = 0; i < customers; i++) {
                        boolean planted = i < 2; // two of the asked tier in the asked city
                        p.setInt(1, i + 1);
                        p.setString(
                                2, NAMES.get(rng.nextInt(NAMES.size())) + " " + (char) ('A' + rng.nextInt(26)) + ".");
                        p.setInt(3, planted ? city + 1 : 1 + rng.nextInt(cities.size()));
                        p.setString(4, codes.get(planted ? tier : rng.nextInt(codes.size())));
                        p.executeUpdate();
                    }
                }
                try (PreparedStatement p = conn.prepareStatement("INSERT INTO orders VALUES (?, ?, ?)")) {
                    for (int i = 0; i < 120; i++) {
                        p.setInt(1, i + 1);
                        p.setInt(2, i < 2 ? i + 1 : 1 + rng.nextInt(customers));
                        p.setInt(3, 5 + rng.nextInt(496));
                        p.executeUpdate();
                    }
                }
                conn.commit();
            }
            AtomicFiles.publish(tmp, db);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (SQLException e) {
            throw new IllegalStateException("could not write the generated database " + db + ": " + e.getMessage(), e);
        }
    }

    /** The values the database holds in a column, for tests: {@code SELECT DISTINCT column FROM table}. */
    static List<String> distinct(Path db, String table, String column) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection conn = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = conn.createStatement();
                ResultSet rs = s.executeQuery("SELECT DISTINCT " + column + " FROM " + table)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
