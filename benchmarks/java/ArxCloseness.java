// ARX 3.9.2's local recoding under t-closeness with the ordered or the hierarchical ground distance,
// which ../shared/arx's ArxRun does not run (its ARX_T is the equal distance only), for the quality
// suite with sensitive columns (benchmarks/quality_sensitive.py).
// Compiled by benchmarks/arx.py against an ARX build's classpath, which holds ../shared/arx's
// ArxRun: its file reading, clock and writing are reused (same default package).
//
//   java ArxCloseness TABLE.csv QI,QI,... HIERDIR k W R [OUT.csv]
//
// The arguments and the local recoding are ArxRun local's (a global search under Loss with
// gs-factor 0 and a 99% suppression limit, then optimizeIterativeFast(output, 0.01)); the model
// comes from the environment: ARX_SENSITIVE=<column>, ARX_T=<t>, ARX_T_DISTANCE=ordered (the
// sensitive column is read as ARX's DECIMAL type, so its values sort as numbers) or hierarchical
// (HIERDIR/<sensitive>.csv is the sensitive column's hierarchy). One JSON line per run, with
// ArxRun's fields ("phase" warmup or measured) and "distance".
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.OrderedDistanceTCloseness;
import org.deidentifier.arx.metric.Metric;

public class ArxCloseness {
    public static void main(String[] a) throws Exception {
        List<String[]> rows = ArxRun.readCsv(a[0]);
        String[] qis = a[1].split(",");
        int k = Integer.parseInt(a[3]);
        int warmups = Integer.parseInt(a[4]), measured = Integer.parseInt(a[5]);
        String out = a.length > 6 ? a[6] : null;
        String sensitive = System.getenv("ARX_SENSITIVE"), tText = System.getenv("ARX_T");
        String distance = System.getenv("ARX_T_DISTANCE");
        if (sensitive == null || tText == null || distance == null)
            throw new IllegalArgumentException("ArxCloseness needs ARX_SENSITIVE, ARX_T and ARX_T_DISTANCE");
        if (!distance.equals("ordered") && !distance.equals("hierarchical"))
            throw new IllegalArgumentException("ARX_T_DISTANCE must be ordered or hierarchical, not " + distance);
        double t = Double.parseDouble(tText);
        Map<String, String[][]> hierarchies = new HashMap<>();
        for (String q : qis)
            hierarchies.put(q, ArxRun.readCsv(ArxRun.hierarchyFile(a[2], q)).toArray(new String[0][]));
        String[][] sensitiveTree = distance.equals("hierarchical")
                ? ArxRun.readCsv(ArxRun.hierarchyFile(a[2], sensitive)).toArray(new String[0][]) : null;
        for (int run = 0; run < warmups + measured; run++) {
            Data.DefaultData data = Data.create();
            for (String[] r : rows) data.add(r);
            DataDefinition definition = data.getDefinition();
            for (String column : rows.get(0))
                definition.setAttributeType(column, hierarchies.containsKey(column)
                        ? Hierarchy.create(hierarchies.get(column))
                        : column.equals(sensitive) ? AttributeType.SENSITIVE_ATTRIBUTE
                        : AttributeType.INSENSITIVE_ATTRIBUTE);
            ARXConfiguration config = ARXConfiguration.create();
            config.setSuppressionLimit(0.99d);
            config.addPrivacyModel(new KAnonymity(k));
            if (distance.equals("ordered")) {
                definition.setDataType(sensitive, DataType.DECIMAL);
                config.addPrivacyModel(new OrderedDistanceTCloseness(sensitive, t));
            } else {
                config.addPrivacyModel(new HierarchicalDistanceTCloseness(sensitive, t,
                        Hierarchy.create(sensitiveTree)));
            }
            config.setQualityModel(Metric.createLossMetric(0d));
            double[] start = ArxRun.clock();
            ARXResult result = new ARXAnonymizer().anonymize(data, config);
            DataHandle handle = result.getOutput();
            if (handle != null) result.optimizeIterativeFast(handle, 0.01d);
            double[] end = ArxRun.clock();
            int suppressed = 0;
            for (int r = 0; handle != null && r < handle.getNumRows(); r++) if (handle.isOutlier(r)) suppressed++;
            ARXLattice.ARXNode node = result.getGlobalOptimum();
            System.out.println("JSON {\"mode\":\"local\",\"k\":" + k + ",\"t\":" + t
                    + ",\"distance\":\"" + distance + "\",\"rows\":" + (rows.size() - 1)
                    + ",\"phase\":\"" + (run < warmups ? "warmup" : "measured") + "\""
                    + ",\"wall\":" + (end[0] - start[0]) + ",\"thread_cpu\":" + (end[1] - start[1])
                    + ",\"proc_cpu\":" + (end[2] - start[2])
                    + ",\"transformation\":\"" + (node == null ? "none" : Arrays.toString(node.getTransformation())) + "\""
                    + ",\"suppressed\":" + suppressed + "}");
            if (run == warmups && out != null && handle != null) ArxRun.save(handle, out);
        }
    }
}
