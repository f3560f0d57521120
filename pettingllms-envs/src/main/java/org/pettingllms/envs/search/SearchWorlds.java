package org.pettingllms.envs.search;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.util.Seeds;
import org.pettingllms.envs.data.ContentSplit;

/**
 * Generated multi-hop worlds at CPU scale ({@code task.options.generator: worlds}): per problem a closed corpus of
 * eight short encyclopedia passages about companies and people, each fact in one of several wordings, and one
 * question in HotpotQA's two kinds. A bridge question ("Where was the founder of Kavio Labs born?") needs the
 * company's passage to learn who founded it and then that person's passage, which does not name the company, so a
 * second search with a name only the first one found. A comparison question ("Which company was founded first, A or
 * B?") needs both passages. Distractors are the similar entities a search finds beside the right one: a company of
 * the same stem ("Kavio Foods"), people sharing the founder's first name or surname, with their own cities and years
 * (the company's passage names a city too: where it is based).
 *
 * <p>Splits by seed and by content: every name (company stem, surname, city) belongs to one split by its hash
 * ({@link ContentSplit#splitOf}), and a world of a split draws only its split's names, so no validation or test
 * answer, and no entity of one, occurs in a training world.
 */
public final class SearchWorlds {
    public static final String NAME = "worlds";
    public static final String BRIDGE = "bridge";
    public static final String COMPARISON = "comparison";

    private static final List<String> FIRST = List.of(
            "Ada", "Ben", "Cleo", "Dario", "Edith", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Leon", "Mira",
            "Nils", "Olga", "Pavel", "Rhea", "Silas", "Tilda", "Ugo", "Vera", "Wanda", "Yannick", "Zora", "Anton",
            "Bianca", "Conrad", "Dora", "Emil", "Frida", "Gideon", "Hanna");
    // Name parts. Every split draws from hundreds of names of each kind (about 960 surnames, 650 cities and 1,680
    // company stems in all, half of each for training), so a model cannot learn the training worlds' names by heart:
    // to search or answer with a name it must copy it from its prompt, which is what a held-out world asks of it.
    private static final List<String> SURNAME_HEAD = List.of(
            "Al", "Bar", "Cor", "Dal", "Ev", "Fen", "Gar", "Hol", "Ism", "Jor", "Kel", "Lun", "Mor", "Nel", "Or", "Pen",
            "Quar", "Ros", "Sel", "Tor", "Ul", "Var", "Wen", "Yar", "Zel", "Ab", "Bren", "Dun", "Eck", "Fal", "Grim",
            "Hart", "Ing", "Kar", "Lind", "Mar", "Norr", "Ost", "Pril", "Stam");
    private static final List<String> SURNAME_TAIL = List.of(
            "ber", "din", "field", "gren", "holt", "kov", "lund", "man", "ner", "rick", "sen", "ton", "vik", "wood",
            "zak", "by", "dahl", "ek", "gard", "ley", "mont", "quist", "ski", "well");
    private static final List<String> CITY_HEAD = List.of(
            "Ash", "Bel", "Brin", "Cal", "Dun", "Elm", "Fair", "Glen", "Hart", "Iron", "Kings", "Lark", "Mill", "North",
            "Oak", "Pine", "Red", "Silver", "Stone", "Thorn", "West", "Wick", "Amber", "Clear", "Birch", "Cold", "Fern",
            "Gold", "High", "Long", "Maple", "Rose", "Salt", "South", "Swan", "Wolf");
    private static final List<String> CITY_TAIL = List.of(
            "ford", "ton", "bury", "haven", "mouth", "field", "port", "wick", "dale", "stead", "moor", "gate", "bridge",
            "brook", "cliff", "hill", "ridge", "vale");
    /** A company stem is a syllable and an ending ("Ka" + "vio"): 70 syllables, 24 endings. */
    private static final List<String> STEM_HEAD = syllables("BDFGKLMNPRSTVZ", "aeiou");

    private static final List<String> STEM_TAIL = List.of(
            "vio", "rex", "nix", "lta", "mon", "dex", "ria", "zen", "tor", "lix", "quo", "ven", "bra", "dor", "fin",
            "gal", "kon", "lum", "mar", "nor", "pex", "ros", "tan", "vex");
    /** A company's name ending and what it makes. */
    private static final Map<String, String> KINDS = Map.of(
            "Labs", "software",
            "Records", "music",
            "Press", "publishing",
            "Motors", "car",
            "Foods", "food",
            "Studios", "film",
            "Systems", "electronics",
            "Works", "engineering",
            "Games", "video game");

    private static final List<String> KIND_NAMES =
            KINDS.keySet().stream().sorted().toList();
    private static final List<String> JOBS = List.of(
            "engineer",
            "chemist",
            "designer",
            "economist",
            "pianist",
            "architect",
            "journalist",
            "physician",
            "inventor",
            "painter");

    private static final List<String> ALL_CITIES = cross(CITY_HEAD, CITY_TAIL);
    // a surname that is also a city ("Dunton") would make "born in Dunton" ambiguous
    private static final Map<Split, List<String>> SURNAMES = bySplit(cross(SURNAME_HEAD, SURNAME_TAIL).stream()
            .filter(s -> !ALL_CITIES.contains(s))
            .toList());
    private static final Map<Split, List<String>> CITIES = bySplit(ALL_CITIES);
    // a stem that is a first name ("Fe" + "lix") would put a person's name in a company's
    private static final Map<Split, List<String>> STEMS = bySplit(
            cross(STEM_HEAD, STEM_TAIL).stream().filter(s -> !FIRST.contains(s)).toList());

    private SearchWorlds() {}

    /** The world and question of a problem seed. */
    public static SearchItem item(long seed) {
        Split split = SeededProblems.splitOf(seed);
        return new Draw(split, new SplittableRandom(Seeds.mix(seed))).item("world-" + Long.toHexString(seed));
    }

    /** The split a name belongs to (a surname, a city, a company stem). */
    static Split splitOfName(String name) {
        return ContentSplit.splitOf(name);
    }

    /** Every surname, city and company stem a split's worlds may use. */
    static Set<String> names(Split split) {
        Set<String> out = new LinkedHashSet<>(SURNAMES.get(split));
        out.addAll(CITIES.get(split));
        out.addAll(STEMS.get(split));
        return out;
    }

    private record Person(String name, String first, String surname, String city, int year, String job) {}

    private record Company(String name, String stem, String kind, Person founder, int year, String city) {}

    /** One world's draw: names without repeats, facts, passages. */
    private static final class Draw {
        private final Split split;
        private final SplittableRandom rng;
        private final Set<String> usedNames = new LinkedHashSet<>();
        private final Set<String> usedCities = new LinkedHashSet<>();
        private final Set<String> usedStems = new LinkedHashSet<>();
        private final Set<Integer> usedYears = new LinkedHashSet<>();
        private final List<Passage> passages = new ArrayList<>();

        Draw(Split split, SplittableRandom rng) {
            this.split = split;
            this.rng = rng;
        }

        SearchItem item(String id) {
            double kind = rng.nextDouble();
            SearchItem item;
            if (kind < 0.6) {
                item = bridge(id);
            } else if (kind < 0.8) {
                item = companies(id);
            } else {
                item = people(id);
            }
            return item;
        }

        private SearchItem bridge(String id) {
            Person founder = person(null, null);
            Company company = company(null, null, founder);
            Person sameFirst = person(founder.first(), null);
            company(company.stem(), null, sameFirst); // the same stem, another kind
            Person sameSurname = person(null, founder.surname());
            company(null, company.kind(), sameSurname); // the same kind, another stem
            company(null, null, person(null, null));
            String question = rng.nextBoolean()
                    ? "Where was the founder of " + company.name() + " born?"
                    : "In which city was the person who founded " + company.name() + " born?";
            return finish(id, question, founder.city(), List.of(company.name(), founder.name()), BRIDGE);
        }

        private SearchItem companies(String id) {
            Company a = company(null, null, person(null, null));
            Company b = company(null, null, person(null, null));
            company(a.stem(), null, person(null, null));
            company(b.stem(), null, person(null, null));
            String question = "Which company was founded first, " + a.name() + " or " + b.name() + "?";
            String answer = a.year() < b.year() ? a.name() : b.name();
            return finish(id, question, answer, List.of(a.name(), b.name()), COMPARISON);
        }

        private SearchItem people(String id) {
            Person a = person(null, null);
            Person b = person(null, null);
            person(a.first(), null);
            person(null, b.surname());
            company(null, null, a);
            company(null, null, b);
            company(null, null, person(null, null));
            String question = "Who was born earlier, " + a.name() + " or " + b.name() + "?";
            String answer = a.year() < b.year() ? a.name() : b.name();
            return finish(id, question, answer, List.of(a.name(), b.name()), COMPARISON);
        }

        private SearchItem finish(String id, String question, String answer, List<String> supporting, String type) {
            List<Passage> shuffled = new ArrayList<>(passages);
            for (int i = shuffled.size() - 1; i > 0; i--) { // the corpus order says nothing about relevance
                int j = rng.nextInt(i + 1);
                Passage t = shuffled.get(i);
                shuffled.set(i, shuffled.get(j));
                shuffled.set(j, t);
            }
            return new SearchItem(id, question, List.of(answer), supporting, type, shuffled);
        }

        /** A new person (with {@code first} or {@code surname} given: sharing it) and their passage. */
        private Person person(String first, String surname) {
            String f;
            String s;
            String name;
            do {
                f = first != null ? first : pick(FIRST);
                s = surname != null ? surname : pick(SURNAMES.get(split));
                name = f + " " + s;
            } while (usedNames.contains(name));
            usedNames.add(name);
            Person p = new Person(name, f, s, city(), year(1920, 1990), pick(JOBS));
            String text = switch (rng.nextInt(4)) {
                case 0 -> p.name() + " is a " + p.job() + " who was born in " + p.city() + " in " + p.year() + ".";
                case 1 -> "Born in " + p.city() + " in " + p.year() + ", " + p.name() + " became a " + p.job() + ".";
                case 2 -> p.name() + " (born " + p.year() + ") is a " + p.job() + " from " + p.city() + ".";
                default -> p.name() + ", a " + p.job() + ", was born in " + p.year() + " in " + p.city() + ".";
            };
            passages.add(new Passage(p.name(), p.name(), text));
            return p;
        }

        /** A new company (of {@code stem} or {@code kind} when given) founded by {@code founder}, and its passage. */
        private Company company(String stem, String kind, Person founder) {
            String st;
            String k;
            do {
                st = stem != null ? stem : pick(STEMS.get(split));
                k = kind != null ? kind : pick(KIND_NAMES);
            } while (usedNames.contains(st + " " + k) || (stem == null && usedStems.contains(st)));
            usedStems.add(st);
            String name = st + " " + k;
            usedNames.add(name);
            Company c = new Company(name, st, k, founder, year(1950, 2015), city());
            String noun = KINDS.get(k);
            String text = switch (rng.nextInt(4)) {
                case 0 ->
                    c.name() + " is a " + noun + " company founded in " + c.year() + " by " + founder.name()
                            + ". It is based in " + c.city() + ".";
                case 1 ->
                    "Founded by " + founder.name() + " in " + c.year() + ", " + c.name() + " is a " + noun
                            + " company based in " + c.city() + ".";
                case 2 ->
                    c.name() + " is a " + noun + " company from " + c.city() + ". " + founder.name() + " started it in "
                            + c.year() + ".";
                default ->
                    "The " + noun + " company " + c.name() + " was founded by " + founder.name() + " in " + c.year()
                            + " and has its offices in " + c.city() + ".";
            };
            passages.add(new Passage(c.name(), c.name(), text));
            return c;
        }

        private String city() {
            String c;
            do {
                c = pick(CITIES.get(split));
            } while (usedCities.contains(c));
            usedCities.add(c);
            return c;
        }

        /** A year no other fact of the world has, so a comparison always has one answer. */
        private int year(int from, int to) {
            int y;
            do {
                y = from + rng.nextInt(to - from + 1);
            } while (usedYears.contains(y));
            usedYears.add(y);
            return y;
        }

        private <T> T pick(List<T> xs) {
            return xs.get(rng.nextInt(xs.size()));
        }
    }

    private static List<String> syllables(String consonants, String vowels) {
        List<String> out = new ArrayList<>();
        for (char c : consonants.toCharArray()) {
            for (char v : vowels.toCharArray()) {
                out.add("" + c + v);
            }
        }
        return out;
    }

    private static List<String> cross(List<String> heads, List<String> tails) {
        List<String> out = new ArrayList<>();
        for (String h : heads) {
            for (String t : tails) {
                out.add(h + t);
            }
        }
        return out;
    }

    private static Map<Split, List<String>> bySplit(List<String> names) {
        return names.stream().collect(Collectors.groupingBy(SearchWorlds::splitOfName, Collectors.toList()));
    }

    /** For tests: the names of every split, each with its split. */
    static Map<String, Split> allNames() {
        return java.util.stream.Stream.of(SURNAMES, CITIES, STEMS)
                .flatMap(m -> m.values().stream())
                .flatMap(List::stream)
                .collect(Collectors.toMap(Function.identity(), SearchWorlds::splitOfName, (a, b) -> a));
    }
}
