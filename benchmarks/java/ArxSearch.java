// ARX 3.9.2's searches that ../shared/arx's ArxRun does not run, on a table of your own, for the
// wide-table benchmark (benchmarks/bench_wide.py): Flash without ARX's limit on the solution space
// (ArxRun's optimal refuses lattices above ARX's default heuristic-search threshold of 100,000
// nodes), the genetic algorithm, and the bottom-up heuristic search.
// Compiled by benchmarks/arx.py against an ARX build's classpath, which holds ../shared/arx's
// ArxRun: its file reading, clock and writing are reused (same default package).
//
//   java ArxSearch ALGORITHM TABLE.csv QI,QI,... HIERDIR k SUPPRESSION MILLIS W R [OUT.csv]
//
// ALGORITHM: flash (ARX's OPTIMAL with the solution-space threshold raised to its maximum), genetic
// (BEST_EFFORT_GENETIC) or heuristic (BEST_EFFORT_BOTTOM_UP); MILLIS: the best-effort searches' time
// limit (ARX's heuristic search time limit; flash ignores it). Quality model: ARX's Loss. The JSON
// lines carry the same fields as ArxRun's, with "mode" the algorithm.
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.ARXConfiguration.AnonymizationAlgorithm;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

public class ArxSearch {
    public static void main(String[] a) throws Exception {
        String algorithm = a[0];
        AnonymizationAlgorithm chosen;
        if (algorithm.equals("flash")) chosen = AnonymizationAlgorithm.OPTIMAL;
        else if (algorithm.equals("genetic")) chosen = AnonymizationAlgorithm.BEST_EFFORT_GENETIC;
        else if (algorithm.equals("heuristic")) chosen = AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP;
        else throw new IllegalArgumentException("algorithm must be flash, genetic or heuristic");
        List<String[]> rows = ArxRun.readCsv(a[1]);
        String[] qis = a[2].split(",");
        int k = Integer.parseInt(a[4]);
        double suppression = Double.parseDouble(a[5]);
        int millis = Integer.parseInt(a[6]);
        int warmups = Integer.parseInt(a[7]), measured = Integer.parseInt(a[8]);
        String out = a.length > 9 ? a[9] : null;
        Map<String, String[][]> hierarchies = new HashMap<>();
        for (String q : qis)
            hierarchies.put(q, ArxRun.readCsv(ArxRun.hierarchyFile(a[3], q)).toArray(new String[0][]));
        for (int run = 0; run < warmups + measured; run++) {
            Data.DefaultData data = Data.create();
            for (String[] r : rows) data.add(r);
            for (String column : rows.get(0))
                data.getDefinition().setAttributeType(column, hierarchies.containsKey(column)
                        ? Hierarchy.create(hierarchies.get(column)) : AttributeType.INSENSITIVE_ATTRIBUTE);
            ARXConfiguration config = ARXConfiguration.create();
            config.addPrivacyModel(new KAnonymity(k));
            config.setSuppressionLimit(suppression);
            config.setQualityModel(Metric.createLossMetric());
            config.setAlgorithm(chosen);
            config.setHeuristicSearchTimeLimit(millis);
            if (algorithm.equals("flash")) config.setHeuristicSearchThreshold(Integer.MAX_VALUE);
            double[] start = ArxRun.clock();
            ARXResult result = new ARXAnonymizer().anonymize(data, config);
            DataHandle handle = result.getOutput();
            double[] end = ArxRun.clock();
            int suppressed = 0;
            for (int r = 0; handle != null && r < handle.getNumRows(); r++) if (handle.isOutlier(r)) suppressed++;
            ARXLattice.ARXNode node = result.getGlobalOptimum();
            System.out.println("JSON {\"mode\":\"" + algorithm + "\",\"k\":" + k + ",\"rows\":" + (rows.size() - 1)
                    + ",\"phase\":\"" + (run < warmups ? "warmup" : "measured") + "\""
                    + ",\"wall\":" + (end[0] - start[0]) + ",\"thread_cpu\":" + (end[1] - start[1])
                    + ",\"proc_cpu\":" + (end[2] - start[2])
                    + ",\"transformation\":\"" + (node == null ? "none" : Arrays.toString(node.getTransformation())) + "\""
                    + ",\"suppressed\":" + suppressed + "}");
            if (run == warmups && out != null && handle != null) ArxRun.save(handle, out);
        }
    }
}
